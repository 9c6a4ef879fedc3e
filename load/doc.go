// Package load runs a measurement: step 7 of the data path
// (docs/ARCHITECTURE.md), on top of all the others. It starts or reaches
// the target (the in-process simulator, a URL, or a vLLM container),
// prepares the workload from the fixture, and runs rate steps through one
// loop, Session.Step: the schedule, the prefix-cache reset, the /metrics
// scraper, the dispatcher and recorder, the client monitor, the judging,
// the baseline comparison. Measure and Sweep run whole configurations;
// RunStep and Run drive a plan built by hand (any Doer, any Workload).
// A fixture with sessions is replayed as sessions, whose rates count
// sessions per second (Plan.Sessions, docs/sessions.md).
//
// Both faces use it: package slotest (go test) and the llmslo command. It
// knows nothing of testing: its errors say what happened, and the face
// says how to fix it in its own terms (a test flag, a command-line flag).
package load
