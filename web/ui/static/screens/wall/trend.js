// One KPI's trend on the wall: its last values as a line (uPlot, on a canvas) and its target as a dashed line
// across, sized to its box. The chart is made once per KPI card and then only given new data or a new size, so
// a value arriving redraws the canvas in place; it is destroyed (with its resize observer) when the card goes.
import { html, useEffect, useRef } from "../../lib.js";
import uPlot from "../../vendor/uplot.mjs";

const LINE = "#ffffff";
const TARGET = "#ffbf47";

/** uPlot's columns: the values evenly spaced in their order (a sparkline: KPIs are entered daily or weekly, and a
 * late entry should not squeeze the others together), the values, and the target at each (null: no line). */
function columns(history, target) {
  const steps = history.map((_, index) => index);
  return [steps, history.map((entry) => entry.value), steps.map(() => target ?? null)];
}

function options(width, height) {
  const point = Math.max(5, Math.round(height / 20));
  return {
    width, height, legend: { show: false }, cursor: { show: false }, select: { show: false },
    padding: [point, point, point, point],
    axes: [{ show: false }, { show: false }],
    scales: { x: { time: false } },
    series: [{}, { stroke: LINE, width: Math.max(2, Math.round(height / 45)), points: { show: true, size: point,
      fill: LINE, stroke: LINE } },
    { stroke: TARGET, width: Math.max(2, Math.round(height / 60)), dash: [point * 1.5, point], points: { show: false } }],
  };
}

/** The chart, labelled for screen readers by `label` (it shows nothing a reader needs beyond the card's text). */
export function Trend({ history, target, label }) {
  const box = useRef(null);
  const chart = useRef(null);
  useEffect(() => {
    const element = box.current;
    const size = () => ({ width: Math.max(40, element.clientWidth), height: Math.max(30, element.clientHeight) });
    const { width, height } = size();
    chart.current = new uPlot(options(width, height), columns(history, target), element);
    const observer = new ResizeObserver(() => chart.current?.setSize(size()));
    observer.observe(element);
    return () => {
      observer.disconnect();
      chart.current.destroy();
      chart.current = null;
    };
  }, []);
  useEffect(() => { chart.current?.setData(columns(history, target)); }, [history, target]);
  return html`<div class="wall-kpi__chart" role="img" aria-label=${label} ref=${box}></div>`;
}
