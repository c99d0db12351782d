// One seed for every fast-check property, so `npm test` runs the same cases on every machine and a CI
// failure replays exactly. FC_SEED=<integer> picks another seed; FC_SEED=random draws one per property
// (fast-check prints it with any counterexample) to explore beyond the fixed cases.
import fc from 'fast-check';

const chosen = process.env.FC_SEED;
if (chosen !== 'random') {
  const seed = chosen === undefined ? 20261124 : Number(chosen);
  if (!Number.isInteger(seed)) throw new Error(`FC_SEED must be an integer or 'random', got '${chosen}'`);
  fc.configureGlobal({ seed });
}
