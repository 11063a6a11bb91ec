// Specifications of the order in which an aggregator runs due checks: one per project at a time, the projects in turn.
import { describe, expect, it } from "vitest"
import { FairCheckQueue, type QueuedCheck } from "./FairCheckQueue.ts"

const check = (projectId: string, n: number): QueuedCheck => ({ projectId, subscriptionId: `sub_${projectId}_${n}`, dueAt: n })
const ids = (checks: ReadonlyArray<QueuedCheck>) => checks.map((c) => c.subscriptionId)

describe("FairCheckQueue", () => {
  it("runs at most one check of a project at a time: a noisy project's 24 due checks leave the other slots to the others", () => {
    const queue = new FairCheckQueue(4)
    for (let n = 0; n < 24; n++) queue.submit(check("noisy", n))
    expect(ids(queue.take())).toEqual(["sub_noisy_0"])
    queue.submit(check("quiet", 0))
    expect(ids(queue.take())).toEqual(["sub_quiet_0"])
    expect(queue.size).toEqual({ running: 2, waiting: 23 })
  })

  it("takes the projects in turn: a project whose check started waits behind the others", () => {
    const queue = new FairCheckQueue(1)
    for (const projectId of ["a", "a", "b", "c"]) queue.submit(check(projectId, queue.size.waiting))
    const order: Array<string> = []
    for (let i = 0; i < 4; i++) {
      const [started] = queue.take()
      if (started === undefined) break
      order.push(started.projectId)
      queue.done(started)
    }
    expect(order).toEqual(["a", "b", "c", "a"])
  })

  it("a project's next check starts when its running one is done; a subscription waits or runs once", () => {
    const queue = new FairCheckQueue(4)
    expect(queue.submit(check("a", 1))).toBe(true)
    expect(queue.submit(check("a", 1))).toBe(false)
    queue.submit(check("a", 2))
    const [first] = queue.take()
    expect(queue.take()).toEqual([])
    expect(queue.submit(check("a", 1))).toBe(false)
    queue.done(first!)
    expect(ids(queue.take())).toEqual(["sub_a_2"])
    expect(queue.submit(check("a", 1))).toBe(true)
  })
})
