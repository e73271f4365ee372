// Text of the service's front page: what Obeya is, going to an organization, creating one.
export default {
  title: "Welcome to Obeya",
  lead: "Your plant's boards, KPIs and actions in one place, live on every screen on the floor.",
  goTitle: "Go to your organization",
  goIntro: "Each organization has its own address. You sign in there.",
  addressLabel: "Your organization's address",
  addressHint: "The first part of the address your colleagues open, for example acme.",
  addressMissing: "Enter your organization's address",
  addressInvalid: "Enter the address with letters, digits and hyphens only, for example acme",
  go: "Go to sign in",
  errorTitle: "There is a problem",
  newTitle: "New to Obeya?",
  newIntro: "Create an organization for your plant or team. It takes a minute; you can invite colleagues afterwards.",
  create: "Create an organization",
  yoursTitle: "Your organizations",
  yoursIntro: "You are signed in here as {email}. Open an organization to sign in to it.",
  role: "your role: {role}",
};
