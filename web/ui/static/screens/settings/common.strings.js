// Strings of the helpers every settings section shares (loading, load errors, the plan message, the board
// picker, downloads).
export default {
  loading: "Loading…",
  loadFailed: "This could not be loaded",
  retry: "Try again",
  planMissing: "The {plan} plan does not include {feature}.",
  planUpgrade: "See the plans and upgrade in Billing",
  planAskAdmin: "Ask an admin of your organization to upgrade the plan.",
  "feature.webhooks": "webhooks",
  "feature.automations": "automations",
  "feature.sso": "single sign-on",
  "feature.kpis": "KPIs",
  workspace: "Workspace",
  project: "Project",
  board: "Board",
  choose: "Choose…",
  noWorkspaces: "There are no workspaces yet. Create one on the home page first.",
  noProjects: "This workspace has no projects yet.",
  noBoards: "This project has no boards yet.",
  showMore: "Show more",
  loadingMore: "Loading more…",
};
