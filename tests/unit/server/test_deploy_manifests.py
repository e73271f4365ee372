"""deploy/ agrees with the server: the manifests parse, the probes name routes the server has, the ports line up
from the Dockerfile through the Deployment, Service and Ingress to nginx, every OBEYA_ variable they set is one
server/config.py reads, and the grace periods outlast the shutdown timeout. Each example names its billing
processor, the metrics token comes from a secret that Prometheus sends, the image has no embedded PostgreSQL,
nginx re-resolves the nodes, and the proxy limits requests per client address where the nodes cannot."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import yaml

from server.app import runner_options
from server.config import Settings
from server.domains import HANDLERS
from web.app import build_web_app

DEPLOY = Path(__file__).resolve().parents[3] / "deploy"
CONFIG_SOURCE = (Path(__file__).resolve().parents[3] / "server" / "config.py").read_text()


def manifests() -> dict[str, dict[str, Any]]:
    """Every Kubernetes object under deploy/k8s, by kind."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            assert document["apiVersion"] and document["metadata"]["name"] == "obeya", path
            assert document["kind"] not in found, f"{document['kind']} twice"
            found[document["kind"]] = document
    return found


def service_monitor() -> dict[str, Any]:
    """The Prometheus Operator's scrape of the pods (deploy/k8s/monitoring: it needs the operator's CRDs)."""
    document: dict[str, Any] = yaml.safe_load((DEPLOY / "k8s" / "monitoring" / "servicemonitor.yaml").read_text())
    assert document["kind"] == "ServiceMonitor"
    return document


def server_routes() -> set[tuple[str, str]]:
    routes = build_web_app(body_timeout=1.0, handlers=HANDLERS).router.routes()
    return {(route.method, route.resource.canonical) for route in routes if route.resource is not None}


def container_port() -> int:
    exposed = re.search(r"^EXPOSE (\d+)$", (DEPLOY / "Dockerfile").read_text(), re.M)
    assert exposed is not None
    return int(exposed.group(1))


def test_the_kubernetes_objects_are_all_there() -> None:
    assert set(manifests()) == {"Deployment", "Service", "Ingress", "PodDisruptionBudget", "ConfigMap", "Secret"}


def test_probes_name_routes_of_the_server_on_the_container_port() -> None:
    deployment = manifests()["Deployment"]
    [container] = deployment["spec"]["template"]["spec"]["containers"]
    [port] = container["ports"]
    assert port["containerPort"] == container_port()
    assert container["args"][-2:] == ["--port", str(container_port())]
    routes = server_routes()
    probes = {name: container[name]["httpGet"] for name in ("readinessProbe", "livenessProbe", "startupProbe")}
    assert probes["readinessProbe"]["path"] == "/readyz" and probes["livenessProbe"]["path"] == "/healthz"
    for probe in probes.values():
        assert ("GET", probe["path"]) in routes
        assert probe["port"] == port["name"]
    # Scraped through the ServiceMonitor (it sends the token); annotations would drive a job that sends none.
    assert not any(key.startswith("prometheus.io/") for key in deployment["spec"]["template"]["metadata"].get(
        "annotations", {}))
    [endpoint] = service_monitor()["spec"]["endpoints"]
    assert ("GET", endpoint["path"]) in routes
    [service_port] = manifests()["Service"]["spec"]["ports"]
    assert endpoint["port"] == service_port["name"] and service_port["targetPort"] == port["name"]
    assert service_monitor()["spec"]["selector"]["matchLabels"].items() <= manifests()["Service"]["metadata"][
        "labels"].items()


def test_service_ingress_and_disruption_budget_select_the_deployment() -> None:
    objects = manifests()
    deployment, service = objects["Deployment"], objects["Service"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert service["spec"]["selector"].items() <= labels.items()
    assert objects["PodDisruptionBudget"]["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert objects["PodDisruptionBudget"]["spec"]["minAvailable"] < deployment["spec"]["replicas"]
    [port] = deployment["spec"]["template"]["spec"]["containers"][0]["ports"]
    [service_port] = service["spec"]["ports"]
    assert service_port["targetPort"] == port["name"]
    for rule in objects["Ingress"]["spec"]["rules"]:
        for path in rule["http"]["paths"]:
            backend = path["backend"]["service"]
            assert backend == {"name": service["metadata"]["name"], "port": {"name": service_port["name"]}}
    # Organizations live at <slug>.<service host>: the ingress takes the service host and its subdomains.
    hosts = {rule["host"] for rule in objects["Ingress"]["spec"]["rules"]}
    service_host = objects["ConfigMap"]["data"]["OBEYA_SERVICE_HOST"]
    assert hosts == {service_host, f"*.{service_host}"}


def test_configuration_is_what_the_server_reads_and_starts_with() -> None:
    objects = manifests()
    config, secret = objects["ConfigMap"]["data"], objects["Secret"]["stringData"]
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    node_env = compose["x-node"]["environment"]
    for name in [*config, *secret, *node_env]:
        assert name.startswith("OBEYA_") and f'"{name}"' in CONFIG_SOURCE, f"{name} is not read by server/config.py"
    # The settings parse (a value the server would refuse stops a pod from starting).
    Settings.from_env({**config, **secret})
    Settings.from_env({key: str(value) for key, value in node_env.items()})
    assert not {"OBEYA_SECRET_KEY", "OBEYA_METRICS_TOKEN", "OBEYA_DATABASE_URL"} & set(config)  # in the Secret


def test_grace_periods_outlast_the_shutdown_timeout() -> None:
    objects = manifests()
    settings = Settings.from_env(objects["ConfigMap"]["data"] | objects["Secret"]["stringData"])
    pod = objects["Deployment"]["spec"]["template"]["spec"]
    pre_stop = pod["containers"][0]["lifecycle"]["preStop"]["sleep"]["seconds"]
    assert runner_options(settings)["shutdown_timeout"] == settings.shutdown_timeout
    assert pod["terminationGracePeriodSeconds"] > pre_stop + settings.shutdown_timeout
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    compose_timeout = float(compose["x-node"]["environment"]["OBEYA_SHUTDOWN_TIMEOUT"])
    assert int(compose["x-node"]["stop_grace_period"].rstrip("s")) > compose_timeout


def test_compose_runs_three_nodes_behind_nginx_on_the_container_port() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    nodes = sorted(name for name, service in services.items() if "build" in service)
    assert nodes == ["node1", "node2", "node3"]
    assert {"postgres", "redis", "nginx"} <= set(services)
    assert services["node1"]["build"]["dockerfile"] == "deploy/Dockerfile"
    nginx = (DEPLOY / "nginx.conf").read_text()
    for node in nodes:
        assert nginx.count(f"server {node}:{container_port()}") == 2  # the request and the live upstream
    # Socket.IO: the WebSocket upgrade is passed through, and the Host header (it names the organization).
    assert "proxy_set_header Upgrade $http_upgrade;" in nginx
    assert "proxy_set_header Connection $connection_upgrade;" in nginx
    assert nginx.count("proxy_set_header Host $http_host;") == 3  # live, import.execute (300 s) and the rest
    assert "location = /api/trpc/import.execute" in nginx and "proxy_read_timeout 300s;" in nginx
    assert "location /socket.io/" in nginx


def _comment_above(text: str, line: str) -> str:
    """The comment lines right above `line` in a YAML file."""
    lines = text.splitlines()
    index = next(i for i, found in enumerate(lines) if found.strip() == line)
    above = []
    for previous in reversed(lines[:index]):
        if not previous.strip().startswith("#"):
            break
        above.append(previous.strip())
    return " ".join(reversed(above))


def test_each_example_chooses_its_billing_processor_on_purpose() -> None:
    objects = manifests()
    config, secret = objects["ConfigMap"]["data"], objects["Secret"]["stringData"]
    # Kubernetes, the production example: Stripe, its secrets in the Secret, and the settings parse.
    assert config["OBEYA_BILLING"] == "stripe" and config["OBEYA_ENV"] == "production"
    assert {"OBEYA_STRIPE_SECRET_KEY", "OBEYA_STRIPE_WEBHOOK_SECRET"} <= set(secret)
    assert not {"OBEYA_STRIPE_SECRET_KEY", "OBEYA_STRIPE_WEBHOOK_SECRET"} & set(config)
    stripe = Settings.from_env({**config, **secret}).stripe
    assert stripe is not None and set(stripe.prices) == {"starter", "business", "enterprise"}
    assert "without paying" in _comment_above((DEPLOY / "k8s" / "configmap.yaml").read_text(),
                                              "OBEYA_BILLING: stripe")
    # compose, the local try: the sandbox, named, with the warning that any admin then changes plans for free.
    compose_text = (DEPLOY / "compose.yaml").read_text()
    assert yaml.safe_load(compose_text)["x-node"]["environment"]["OBEYA_BILLING"] == "sandbox"
    warning = _comment_above(compose_text, "OBEYA_BILLING: sandbox")
    assert "ANY organization admin" in warning and "without paying" in warning


def test_the_metrics_token_comes_from_a_secret_and_prometheus_sends_it(tmp_path: Path) -> None:
    objects = manifests()
    # Kubernetes: in the Secret the pods load, and the ServiceMonitor sends that key of that Secret.
    secret = objects["Secret"]
    assert "OBEYA_METRICS_TOKEN" in secret["stringData"] and "OBEYA_METRICS_TOKEN" not in objects["ConfigMap"]["data"]
    [container] = objects["Deployment"]["spec"]["template"]["spec"]["containers"]
    assert {"secretRef": {"name": secret["metadata"]["name"]}} in container["envFrom"]
    [endpoint] = service_monitor()["spec"]["endpoints"]
    assert endpoint["authorization"] == {"type": "Bearer", "credentials": {"name": secret["metadata"]["name"],
                                                                           "key": "OBEYA_METRICS_TOKEN"}}
    production = Settings.from_env({**objects["ConfigMap"]["data"], **secret["stringData"]})
    assert production.production and production.metrics_token == secret["stringData"]["OBEYA_METRICS_TOKEN"]

    # compose: the nodes export it from the metrics_token secret, the file Prometheus sends as its credential.
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    node = compose["x-node"]
    assert "OBEYA_METRICS_TOKEN" not in node["environment"] and node["secrets"] == ["metrics_token"]
    token_file = DEPLOY / compose["secrets"]["metrics_token"]["file"]
    prometheus = compose["services"]["prometheus"]
    assert prometheus["secrets"] == ["metrics_token"]
    assert "./prometheus.yml:/etc/prometheus/prometheus.yml:ro" in prometheus["volumes"]
    [job] = yaml.safe_load((DEPLOY / "prometheus.yml").read_text())["scrape_configs"]
    assert job["metrics_path"] == "/metrics"
    assert job["authorization"] == {"type": "Bearer", "credentials_file": "/run/secrets/metrics_token"}
    nodes = sorted(name for name, service in compose["services"].items() if "build" in service)
    assert job["static_configs"] == [{"targets": [f"{name}:{container_port()}" for name in nodes]}]
    # The node's entrypoint, run as the container runs it (compose's `$$` is a `$`), on a copy of the secret:
    # the command it starts sees the file's token.
    (tmp_path / "token").write_text(token_file.read_text())
    script = node["entrypoint"][2].replace("$$", "$").replace("/run/secrets/metrics_token", str(tmp_path / "token"))
    started = subprocess.run([*node["entrypoint"][:2], script, node["entrypoint"][3], "sh", "-c",
                              'printf %s "$OBEYA_METRICS_TOKEN"'], capture_output=True, text=True, check=True)
    assert started.stdout == token_file.read_text().strip()
    assert node["command"] == ["obeya", "serve", "--host", "0.0.0.0", "--port", str(container_port())]
    assert Settings.from_env({**{k: str(v) for k, v in node["environment"].items()}, "OBEYA_ENV": "production",
                              "OBEYA_METRICS_TOKEN": started.stdout}).metrics_token == started.stdout


def test_the_image_carries_no_embedded_postgresql() -> None:
    # The quick start's embedded default keeps pgserver a default dependency; the image removes it again.
    pyproject = (DEPLOY.parent / "pyproject.toml").read_text()
    assert re.search(r'^\s*"pgserver[>=<~ ]', pyproject, re.M)
    [install] = [line for line in (DEPLOY / "Dockerfile").read_text().splitlines() if line.startswith("RUN ")]
    steps = [step.strip() for step in install.removeprefix("RUN ").split("&&")]
    assert steps.index("pip uninstall -y pgserver") > steps.index("pip install .")


def test_nginx_re_resolves_the_nodes_it_proxies_to() -> None:
    nginx = (DEPLOY / "nginx.conf").read_text()
    # Docker's DNS, answers kept briefly: a node recreated with a new address is found again within seconds.
    resolver = re.search(r"^\s*resolver 127\.0\.0\.11 valid=(\d+)s", nginx, re.M)
    assert resolver is not None and int(resolver.group(1)) <= 10
    upstreams = re.findall(r"upstream (\w+) \{(.*?)\}", nginx, re.S)
    assert {name for name, _ in upstreams} == {"obeya", "obeya_live"}
    for name, body in upstreams:
        assert re.search(rf"^\s*zone {name} \d+k;", body, re.M), name  # `resolve` needs the shared zone
        servers = re.findall(r"^\s*server (\S+)(.*);", body, re.M)
        assert len(servers) == 3 and all(" resolve" in rest for _, rest in servers), name
    assert "ip_hash;" in dict(upstreams)["obeya_live"]  # Socket.IO's polling stays on the node of its session
    # `resolve` on an upstream server is in the open-source build from nginx 1.27.3.
    image = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]["nginx"]["image"]
    name, _, tag = image.partition(":")
    assert name == "nginx" and tuple(int(part) for part in tag.split(".")) >= (1, 27, 3)


def test_the_proxy_limits_requests_per_client_where_the_nodes_cannot() -> None:
    """The examples raise the nodes' per-address limit out of the way (the nodes see only the proxy), so the
    proxy in front limits each client address: nginx on the API and public pages, not on live connections
    nor /metrics; the ingress by its annotations."""
    for environment in (yaml.safe_load((DEPLOY / "compose.yaml").read_text())["x-node"]["environment"],
                        manifests()["ConfigMap"]["data"]):
        assert int(environment["OBEYA_ANONYMOUS_RATE_LIMIT"]) == 1_000_000
    nginx = (DEPLOY / "nginx.conf").read_text()
    zone = re.search(r"^\s*limit_req_zone \$binary_remote_addr zone=(\w+):\d+m rate=(\d+)r/s;", nginx, re.M)
    assert zone is not None and int(zone.group(2)) * 60 >= 600  # at least the node's own per-address limit
    assert re.search(r"^\s*limit_req_status 429;", nginx, re.M)
    limited = {location: re.search(rf"limit_req zone={zone.group(1)} burst=\d+ nodelay;", body) is not None
               for location, body in re.findall(r"location ([^{]+?) \{(.*?)\n        \}", nginx, re.S)}
    assert limited == {"/socket.io/": False, "= /metrics": False, "= /api/trpc/import.execute": True, "/": True}
    annotations = manifests()["Ingress"]["metadata"]["annotations"]
    rps = int(annotations["nginx.ingress.kubernetes.io/limit-rps"])
    assert rps * 60 >= 600 and int(annotations["nginx.ingress.kubernetes.io/limit-burst-multiplier"]) >= 1
