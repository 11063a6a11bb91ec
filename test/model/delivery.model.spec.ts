// The delivery step in the lifecycle model, told step by step: a delivery that succeeds, one that fails retryably and
// then gets through, one the destination refuses, and a deliverer that dies after writing the file but before
// recording it. Every invariant holds throughout (runHistory), and each ends as the delivery rules say.
import { describe, expect, it } from "vitest"
import type { Action } from "./Actions.ts"
import { runHistory } from "./Lifecycle.ts"
import { isAwaitingDelivery } from "@mds/shared/domain/job/JobState"
import { MODEL_DESTINATION, World } from "./World.ts"

const writes = (n: number): ReadonlyArray<Action> => Array.from({ length: n }, () => ({ _tag: "Write", gate: 0 }))
/** A download with a destination whose one run stored its file: JobStored written, the job waits for its delivery. */
const stored: ReadonlyArray<Action> = [
  { _tag: "Download", project: 0, gateway: 0, destination: true },
  ...writes(6),
  { _tag: "Take", message: 0, outcome: { _tag: "Complete", bytes: 1_000_000 } },
  ...writes(2),
  { _tag: "Finish", run: 0 },
  ...writes(2)
]

const onlyJob = (world: World) => {
  const [state] = [...world.jobStates().values()]
  if (state === null || state === undefined) throw new Error("no job")
  return state
}
const writesOfMedia = (world: World) =>
  world.destination.writes.get(`prj_model_a/${MODEL_DESTINATION}/Model Channel/${onlyJob(world).id}.mp4`)

describe("delivery in the lifecycle model", () => {
  it("the history the others start from leaves the job stored, waiting for its delivery", () => {
    const world = new World()
    for (const step of stored) world.apply(step)
    expect(isAwaitingDelivery(onlyJob(world))).toBe(true)
  })

  it("stores, then completes once delivered, the file written once", () => {
    const world = runHistory([...stored, { _tag: "DeliveryRound", job: 0, mode: "ok" }, ...writes(2)])
    expect(onlyJob(world).status).toBe("completed")
    expect(onlyJob(world).delivery?.status).toBe("delivered")
    expect(writesOfMedia(world)).toBe(1)
  })

  it("waits after an unreachable destination and delivers on a later attempt", () => {
    const world = runHistory([
      ...stored,
      { _tag: "DeliveryRound", job: 0, mode: "unreachable" },
      ...writes(1),
      { _tag: "Tick", ms: 10_000 },
      { _tag: "DeliveryRound", job: 0, mode: "ok" },
      ...writes(2)
    ])
    expect(onlyJob(world).delivery).toMatchObject({ status: "delivered", attempts: 1 })
    expect(writesOfMedia(world)).toBe(1)
  })

  it("fails the job destination_denied when the destination refuses, and frees its slot", () => {
    const world = runHistory([...stored, { _tag: "DeliveryRound", job: 0, mode: "denied" }, ...writes(2)])
    expect(onlyJob(world).error?.code).toBe("destination_denied")
    expect(onlyJob(world).delivery?.status).toBe("failed")
    expect(writesOfMedia(world)).toBeUndefined()
  })

  it("a deliverer killed after writing the file, before recording it: the next attempt records it without writing again", () => {
    const killed: ReadonlyArray<Action> = [...stored, { _tag: "DeliveryRound", job: 0, mode: "ok" }, { _tag: "Crash", process: 0 }]
    const before = new World()
    for (const step of killed) before.apply(step)
    // The file is in the destination, the outcome unrecorded: the deliverer died between the two.
    expect(writesOfMedia(before)).toBe(1)
    expect(isAwaitingDelivery(onlyJob(before))).toBe(true)
    const world = runHistory(killed)
    const deliveries = world.written.filter((w) => w.writer.label === "deliveries").map((w) => (w.message.payload as { _tag: string })._tag)
    expect(deliveries[0]).toBe("JobDelivered")
    expect(onlyJob(world).delivery?.status).toBe("delivered")
    expect(writesOfMedia(world)).toBe(1)
  })
})
