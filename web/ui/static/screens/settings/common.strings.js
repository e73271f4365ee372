// Strings of the helpers every settings section shares (loading, load errors, the board picker).
export default {
  loading: "Loading…",
  loadFailed: "This could not be loaded",
  retry: "Try again",
  workspace: "Workspace",
  project: "Project",
  board: "Board",
  choose: "Choose…",
  noWorkspaces: "There are no workspaces yet. Create one on the home page first.",
  noProjects: "This workspace has no projects yet.",
  noBoards: "This project has no boards yet.",
};
