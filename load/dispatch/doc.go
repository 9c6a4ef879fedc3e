// Package dispatch sends requests on an open-loop schedule: step 4 of the
// data path (docs/ARCHITECTURE.md). Request i goes out at start+Schedule[i]
// whether or not earlier ones have finished; a late dispatcher sends at
// once and the lag is recorded, and no slot is ever skipped or shifted.
// Requests are built (and, for a Preparer such as the client, encoded)
// ahead of the schedule, off the send path. An in-flight cap, when set,
// drops and counts; it never queues in the client, which would hide the
// server's queue.
//
// SessionLoop replays conversations and agent runs (docs/sessions.md):
// sessions start open-loop on the schedule, while inside one each turn
// waits for the previous response (and the sub-agents it waits for) plus a
// think time, so its intended time is computed as the replay runs.
//
// The Doer and OutcomeSink interfaces (with DoerFunc) keep it apart from the
// client and the statistics: it imports neither's internals. ClosedLoop is
// here only to show the coordinated-omission trap beside the open loop; it
// may cap its own rate with a token bucket, the dispatcher never does.
package dispatch
