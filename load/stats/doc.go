// Package stats holds the statistics the verdicts rest on: latency
// histograms (HDR, 1µs to 1h at 3 significant digits, nearest-rank
// percentiles that never understate a latency), distribution-free
// confidence intervals for percentiles from order statistics, widened by
// the design effect that per-second clusters of the same observations show
// (Clusters), a block bootstrap of the ratio of two runs' percentiles
// (RatioInterval), the Wilson interval for a proportion such as an error
// rate, and the HDR interval-log and JSON encodings that let a histogram
// leave the process and come back whole. Stage 5 of the data path (docs/ARCHITECTURE.md), used by observe,
// verdict and report.
//
// It knows nothing of requests, servers or SLOs: numbers in, numbers out.
package stats
