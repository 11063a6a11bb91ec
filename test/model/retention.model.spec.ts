// Retention in the lifecycle model, told step by step: two delivered entries of the retained subscription (keep_last
// 1): a round removes the older one's media and NFO and records it; a round whose remover died before its record is
// taken up by the next, which records it once; an entry whose job passed its lifetime (its records gone) is still
// removed from the subscription's library. Every invariant holds throughout (runHistory).
import { describe, expect, it } from "vitest"
import type { Action } from "./Actions.ts"
import { runHistory } from "./Lifecycle.ts"
import { MODEL_DESTINATION, World } from "./World.ts"

const writes = (n: number): ReadonlyArray<Action> => Array.from({ length: n }, () => ({ _tag: "Write", gate: 0 }))
/** One download with a destination, run, stored and delivered. */
const delivered = (job: number): ReadonlyArray<Action> => [
  { _tag: "Download", project: 0, gateway: 0, destination: true },
  ...writes(6),
  { _tag: "Take", message: 0, outcome: { _tag: "Complete", bytes: 1_000_000 } },
  ...writes(2),
  { _tag: "Finish", run: 0 },
  ...writes(2),
  { _tag: "DeliveryRound", job, mode: "ok" },
  ...writes(2)
]
const two: ReadonlyArray<Action> = [...delivered(0), { _tag: "Tick", ms: 1_000 }, ...delivered(1)]

const jobs = (world: World) => [...world.jobStates().values()].flatMap((state) => (state === null ? [] : [state]))
const removalsOf = (world: World, jobId: string) =>
  [...world.destination.removals.entries()].filter(([key]) => key.startsWith(`prj_model_a/${MODEL_DESTINATION}/Model Channel/${jobId}`))

describe("retention in the lifecycle model", () => {
  it("the history delivers both entries", () => {
    const world = runHistory(two)
    expect(jobs(world).map((job) => job.delivery?.status)).toEqual(["delivered", "delivered"])
  })

  it("keep_last 1: the older entry's media and NFO are removed and it reads removed, the newer stays", () => {
    const world = runHistory([...two, { _tag: "RetentionRound", project: 0, mode: "ok" }, ...writes(4)])
    const [older, newer] = [...jobs(world)].sort((a, b) => (a.delivery?.deliveredAt ?? 0) - (b.delivery?.deliveredAt ?? 0))
    expect(older?.delivery?.status).toBe("removed")
    expect(newer?.delivery?.status).toBe("delivered")
    expect(removalsOf(world, older?.id ?? "").map(([key]) => key.split("/").at(-1))).toEqual([`${older?.id}.mp4`, `${older?.id}.nfo`])
    expect(removalsOf(world, newer?.id ?? "")).toEqual([])
  })

  it("an unreachable destination removes nothing and records nothing; a later round does", () => {
    const world = runHistory([
      ...two,
      { _tag: "RetentionRound", project: 0, mode: "unreachable" },
      ...writes(4),
      { _tag: "RetentionRound", project: 0, mode: "ok" },
      ...writes(4)
    ])
    expect(
      jobs(world)
        .map((job) => job.delivery?.status)
        .sort()
    ).toEqual(["delivered", "removed"])
  })

  it("a round killed midway, then another: the files removed, the removal recorded once", () => {
    const world = runHistory([
      ...two,
      { _tag: "RetentionRound", project: 0, mode: "ok" },
      { _tag: "Crash", process: 0 },
      { _tag: "RetentionRound", project: 0, mode: "ok" },
      ...writes(6)
    ])
    const recorded = world.written.filter((w) => (w.message.payload as { _tag: string })._tag === "JobDeliveryRemoved")
    expect(recorded.length).toBe(1)
    expect(world.destination.removals.size).toBe(2)
  })

  it("an entry whose job's records are gone (past its lifetime) is still removed: the subscription's library holds it", () => {
    const world = runHistory([
      ...delivered(0),
      // The first round takes the delivered entry into the library (keep_last 1: nothing to remove yet).
      { _tag: "RetentionRound", project: 0, mode: "ok" },
      ...writes(4),
      { _tag: "JobRecordsGone", job: 0 },
      { _tag: "Tick", ms: 1_000 },
      ...delivered(1),
      { _tag: "RetentionRound", project: 0, mode: "ok" },
      ...writes(6)
    ])
    const [older, newer] = [...jobs(world)].sort((a, b) => (a.delivery?.deliveredAt ?? 0) - (b.delivery?.deliveredAt ?? 0))
    expect(removalsOf(world, older?.id ?? "").map(([key]) => key.split("/").at(-1))).toEqual([`${older?.id}.mp4`, `${older?.id}.nfo`])
    expect(removalsOf(world, newer?.id ?? "")).toEqual([])
    const removedFromLibrary = world.written.flatMap(({ message }) => {
      const payload = message.payload as { readonly _tag: string; readonly jobIds?: ReadonlyArray<string> }
      return payload._tag === "SubscriptionEntriesRemoved" ? (payload.jobIds ?? []) : []
    })
    expect(removedFromLibrary).toEqual([older?.id])
    // Nothing is recorded on a job that is gone.
    expect(world.written.filter(({ message }) => (message.payload as { _tag: string })._tag === "JobDeliveryRemoved")).toEqual([])
  })
})
