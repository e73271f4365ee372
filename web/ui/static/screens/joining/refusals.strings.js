// Text of the refusals shared by the sign-in, sign-up and invitation screens.
export default {
  tooMany: "Too many attempts for now. Try again {when}.",
  unreachable: "The server cannot be reached. Check the network connection and try again.",
  unavailable: "The server could not do this just now. Try again in a moment.",
};
