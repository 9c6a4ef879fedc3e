package client

// ClassAbandoned is the class of a request cancelled mid-stream on
// purpose, as a user pressing stop does (dispatch.CancelPlan). The
// dispatcher sets it, not the client: to the client such a request is one
// whose context ended. It is not a failure: it counts neither in the
// error rate nor in the latency percentiles.
const ClassAbandoned ErrorClass = "abandoned"
