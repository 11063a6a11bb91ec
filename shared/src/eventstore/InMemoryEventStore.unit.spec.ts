// The in-memory event store, held to the EventStore port's contract, and its duplicate window expiring.
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { eventStoreContract } from "../../../test/support/EventStoreContract.ts"
import type { JobEvent } from "../domain/job/JobEvent.ts"
import { JobEvent as JobEventCodec } from "../domain/job/JobEvent.ts"
import { InMemoryEventStoreLayer, makeInMemoryEventStore } from "./InMemoryEventStore.ts"
import { jobSubject } from "../nats/Subjects.ts"

layer(InMemoryEventStoreLayer())("InMemoryEventStore", eventStoreContract)

const progressed = (percent: number): JobEvent => ({ _tag: "JobProgressed", v: 1, jobId: "job_a", percent, at: percent })

describe("InMemoryEventStore's duplicate window", () => {
  it.effect("a msgId is a duplicate within the window and stored again once it passed", () =>
    Effect.gen(function* () {
      const { service: store, messages } = makeInMemoryEventStore({ duplicateWindowMs: 120_000 })
      const subject = jobSubject("prj_a", "job_a")
      const first = yield* store.append(JobEventCodec, subject, progressed(1), { msgId: "same" })
      yield* TestClock.adjust("119 seconds")
      assert.deepStrictEqual(yield* store.append(JobEventCodec, subject, progressed(1), { msgId: "same" }), {
        seq: first.seq,
        duplicate: true
      })
      yield* TestClock.adjust("1 second")
      const again = yield* store.append(JobEventCodec, subject, progressed(1), { msgId: "same" })
      assert.isFalse(again.duplicate)
      assert.strictEqual(messages().length, 2)
    })
  )

  it.effect("beforeAppend runs before every append, single or batch", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const { service: store } = makeInMemoryEventStore({ beforeAppend: (subject) => Effect.sync(() => seen.push(subject)) })
      const subject = jobSubject("prj_a", "job_a")
      yield* store.append(JobEventCodec, subject, progressed(1), { msgId: "a" })
      yield* store.appendBatch(
        JobEventCodec,
        subject,
        [
          { event: progressed(2), msgId: "b" },
          { event: progressed(3), msgId: "c" }
        ],
        { expectedLastSeq: 1 }
      )
      assert.deepStrictEqual(seen, [subject, subject])
    })
  )
})
