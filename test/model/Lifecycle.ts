// Runs one generated history through the model: each step, then the safety invariants; at the end everything settles
// and the settled invariants are checked. Throws with the trace of steps and what broke.
import { type Action, describeAction } from "./Actions.ts"
import { A_LIFETIME_LATER, QUIET, SAFETY, SETTLED, UNDISTURBED, violations } from "./Invariants.ts"
import { JOB_LIFETIME_MS, World } from "./World.ts"

export class InvariantBroken extends Error {}

export const runHistory = (history: ReadonlyArray<Action>): World => {
  const world = new World()
  const trace: Array<string> = []
  const fail = (when: string, problems: ReadonlyArray<string>) => {
    throw new InvariantBroken(
      [`invariant broken ${when}:`, ...problems.map((p) => `  ${p}`), "steps:", ...trace.map((t, i) => `  ${i + 1}. ${t}`)].join("\n")
    )
  }
  for (const step of history) {
    trace.push(describeAction(step))
    world.apply(step)
    const broken = [
      ...violations(world, SAFETY),
      ...(world.disturbed ? [] : violations(world, UNDISTURBED)),
      ...(world.processes.busy() || world.disturbed ? [] : violations(world, QUIET))
    ]
    if (broken.length > 0) fail(`after step ${trace.length}`, broken)
  }
  trace.push("(settle)")
  world.settle()
  const broken = [...violations(world, SAFETY), ...violations(world, QUIET), ...violations(world, SETTLED)]
  if (broken.length > 0) fail("once settled", broken)
  trace.push("(a lifetime later, settle)")
  world.tick(JOB_LIFETIME_MS)
  world.settle()
  const late = [...violations(world, SAFETY), ...violations(world, A_LIFETIME_LATER)]
  if (late.length > 0) fail("a lifetime later", late)
  return world
}
