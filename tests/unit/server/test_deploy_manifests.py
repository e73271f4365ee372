"""deploy/ agrees with the server: the manifests parse, the probes name routes the server has, the ports line up
from the Dockerfile through the Deployment, Service and Ingress to nginx, every OBEYA_ variable they set is one
server/config.py reads, and the grace periods outlast the shutdown timeout."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from server.app import runner_options
from server.config import Settings
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


def server_routes() -> set[tuple[str, str]]:
    return {(route.method, route.resource.canonical) for route in build_web_app(body_timeout=1.0).router.routes()
            if route.resource is not None}


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
    annotations = deployment["spec"]["template"]["metadata"]["annotations"]
    assert ("GET", annotations["prometheus.io/path"]) in routes
    assert int(annotations["prometheus.io/port"]) == container_port()


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
