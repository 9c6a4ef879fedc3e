// Package report is the report's schema: stage 7, the last, of the data path
// (docs/ARCHITECTURE.md), as plain data. A Report holds a run's steps; a
// StepReport holds what one step measured (counts, latency summaries and
// histograms, server and client figures, a per-second timeline) and how it
// was judged (SLO results with their intervals, hazards, the verdict); a
// session replay's step adds its sessions and its turns by position.
// docs/report.md documents every field.
//
// Beside the types it keeps the operations on the data itself: writing the
// JSON (WriteJSON), merging shards' reports (CheckShards, MergeStep) and
// the HDR interval log of a step's histograms. It judges nothing (package
// verdict does), measures nothing, and renders nothing: the HTML page, the
// terminal tables and the CI markdown are package render's, so that the
// measuring code (package load), which imports this package, links no template or chart code.
package report
