// Property tests draw their inputs from one fixed seed, so a run is reproducible and CI cannot
// fail on a rare draw that no one can replay. Set FC_SEED to explore other inputs locally
// (e.g. `FC_SEED=$RANDOM npm test`); a failure prints the seed and the counterexample.
import fc from "fast-check";

const seed = Number(process.env.FC_SEED ?? 20261130);
fc.configureGlobal({ seed: Number.isFinite(seed) ? seed : 20261130 });
