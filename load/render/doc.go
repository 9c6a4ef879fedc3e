// Package render turns a report (package report) into what people read: a
// self-contained HTML page with the latency-against-rate curve, each
// step's timeline and, for a step run until decided, how its intervals
// narrowed to the decision, drawn as inline SVG (WriteHTML, WriteHTMLFile), the
// terminal summary and step table (WriteSummary, WriteStep, FailedSLO,
// CapacityText, WriteVariants), markdown for a CI job's step summary
// (Markdown, AppendStepSummary) and the words a step's rate and notes are
// introduced with (AchievedInWords, NoteWord).
//
// Only the faces (slotest, cmd/llmslo) and tools import it: package load
// never does, so that measuring and judging a step links neither
// html/template nor the charting library. A program that only reads or
// writes reports as data needs package report alone.
package render
