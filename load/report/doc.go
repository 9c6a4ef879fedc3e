// Package report is the report's schema and its writers: the last step of
// the data path (docs/ARCHITECTURE.md). A Report holds a run's steps; a
// StepReport holds what one step measured (counts, latency summaries and
// histograms, server and client figures, a per-second timeline) and how it
// was judged (SLO results with their intervals, hazards, the verdict); a
// session replay's step adds its sessions and its turns by position.
// docs/report.md documents every field.
//
// Writers: JSON (WriteJSON), the HDR interval log of a step's histograms,
// a self-contained HTML page with the latency-against-rate curve and each
// step's timeline, a terminal summary and step table, and markdown for a
// CI step summary. It judges nothing (package verdict does) and measures
// nothing.
package report
