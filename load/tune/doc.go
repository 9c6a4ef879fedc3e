// Package tune searches over rates and server settings for a plan of
// package load: Sweep finds the knee (the highest rate that meets every
// SLO, bisecting the plan's rates) and what binds there, once per server
// variant when asked; Tune runs the tuning loop of docs/tuning.md over
// sweeps, changing one vLLM flag at a time where the binding constraint
// names one, then reads Protect (an admission limit and a KEDA
// ScaledObject at the knee) and runs the overload gate at OverloadFactor
// times the knee with that limit.
//
// The loop's decisions are pure functions beside it (Next, Judge, Rates,
// LowerLimit, Command): which one flag the binding constraint names,
// whether a change is kept, and when the loop stops, each tested on a
// table. The loop measures only through load.Open and load.Measure;
// package load never imports this one.
//
// To gate fixed rates, use load.Measure (or slotest) instead: a sweep
// picks each rate from the last step's verdict, so it cannot be sharded
// or compared with a baseline.
package tune
