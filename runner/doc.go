// Package load is llmslo's open-loop load engine: arrival schedules computed
// before a step starts, a dispatcher that sends every request at its intended
// time whether or not earlier ones have finished, a streaming client for
// OpenAI-compatible servers that timestamps every server-sent event, HDR
// histograms of the latencies defined in the project's DESIGN.md, SLO
// expressions, server-metrics scraping and the hazards that say when a
// measurement cannot be trusted.
//
// Use it directly to drive a server from a program; from a test, use package
// slotest, which wraps it in go test manners. It is not a closed-loop
// benchmark: a concurrency cap here drops requests and says so, it never
// queues them in the client.
package runner
