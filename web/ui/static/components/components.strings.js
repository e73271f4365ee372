// Text the shared components say themselves (the rest they are given by the screen that uses them).
export default {
  errorPrefix: "Error:",
  breadcrumb: "Breadcrumb",
};
