// `npm run simulate -- --runs N [--seed S] [--steps M] [--mix subscriptions]`: the lifecycle model over more generated
// histories than the suite runs (`--mix subscriptions`: the steps weighted towards subscriptions, as
// subscriptions.model.spec.ts draws them); prints a failing seed with its shrunk trace of steps, which `--seed S --path P`
// replays.
import { parseArgs } from "node:util"
import fc from "fast-check"
import { historyOf, subscriptionAction } from "./Actions.ts"
import { runHistory } from "./Lifecycle.ts"

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "1000" },
    seed: { type: "string" },
    path: { type: "string" },
    steps: { type: "string", default: "80" },
    mix: { type: "string", default: "all" }
  }
})
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed)
const runs = Number(values.runs)
const maxLength = Number(values.steps)
if (values.mix !== "all" && values.mix !== "subscriptions") throw new Error(`--mix is all or subscriptions, not ${values.mix}`)
const subscriptions = values.mix === "subscriptions"
console.log(`lifecycle model: ${runs} histories of up to ${maxLength} steps (${values.mix}), seed ${seed}`)
const started = Date.now()
const details = fc.check(
  fc.property(subscriptions ? historyOf(maxLength, subscriptionAction) : historyOf(maxLength), (steps) => {
    runHistory(steps)
  }),
  { seed, numRuns: runs, ...(values.path === undefined ? {} : { path: values.path }) }
)
if (details.failed) {
  console.log(`FAILED after ${details.numRuns} histories (seed ${details.seed}, path ${details.counterexamplePath})`)
  console.log(
    `replay: npm run simulate -- --seed ${details.seed} --path ${details.counterexamplePath} --steps ${maxLength} --mix ${values.mix}`
  )
  console.log(`history: ${JSON.stringify(details.counterexample?.[0])}`)
  console.log(details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance))
  process.exitCode = 1
} else console.log(`ok: ${details.numRuns} histories in ${((Date.now() - started) / 1000).toFixed(1)} s, every invariant held`)
