// The app's stable paths, built in one place: what a notification, an activity entry or a search result
// about an entity links to.

const PATHS = { item: "items", board: "boards", kpi: "kpis", action: "actions", workspace: "workspaces",
  project: "projects" };

/** The path of an entity by its type ("item", "board", "kpi", "action", ...), or null when it has none. */
export function entityPath(entityType, entityId) {
  const segment = PATHS[String(entityType ?? "").toLowerCase()];
  return segment && entityId ? `/${segment}/${encodeURIComponent(entityId)}` : null;
}

export const boardPath = (id, view) => `/boards/${encodeURIComponent(id)}${view ? `?view=${view}` : ""}`;
export const itemPath = (id) => `/items/${encodeURIComponent(id)}`;
export const settingsPath = (section) => `/settings/${section}`;
