// Package load runs a measurement: the run loop under both faces (package
// slotest for go test, the llmslo command), which drives every stage of the
// data path in docs/ARCHITECTURE.md. A Plan says everything about a run as
// typed values: the Target (a server to start or reach), the fixture, the
// rates, the arrival process, the SLOs, the hazard thresholds. Measure runs
// it; Open returns a Measurement that runs a step at a time (slotest
// makes each step a subtest, package load/tune's Sweep and Tune pick each
// rate from the last step's verdict) and can show a closed loop beside it. Every
// step goes through one loop: the schedule (load/arrival), the prefix-cache
// reset and the /metrics scraper (load/vllmapi), the dispatcher
// (load/dispatch) sending requests (load/workload) through the streaming
// client (load/client) into the recorder (load/observe, load/stats), then
// the verdict (load/verdict) and the step's place in the report
// (load/report). A fixture with sessions is replayed as sessions, whose
// rates count sessions per second (docs/sessions.md).
//
// Package load knows nothing of testing and reads no environment variable;
// it links no simulator (vllmsim/simtarget makes the simulator a Target)
// and no renderer (load/render writes a report out). Its errors say what
// happened; the face says how to fix it in its own terms (a test option, a
// command-line flag).
package load
