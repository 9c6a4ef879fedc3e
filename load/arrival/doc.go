// Package arrival computes open-loop schedules: stage 3 of the data path
// (docs/ARCHITECTURE.md). A schedule is the list of intended send offsets
// of a step, fixed before the step starts, so that no response can move a
// send: constant, Poisson and gamma (exactly round(rate·d) arrivals, see
// PoissonSchedule), a trace's own rhythm, a ramp. Every function is pure;
// random kinds are seeded.
//
// Spec is the parsed --arrival flag; Process is the interface a custom
// schedule implements, as vegeta's Pacer, with ProcessFunc to adapt a
// function. Nothing here sleeps or sends: the dispatcher does that, and it
// never uses a token bucket (which would absorb missed slots and hide a
// late client, the coordinated-omission trap this tool exists to expose).
package arrival
