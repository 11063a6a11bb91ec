// The EventStore port's contract: what every adapter (JetStream, in memory) must do, run by each adapter's spec.
import { assert } from "@effect/vitest"
import type { Vitest } from "@effect/vitest"
import { Effect, Option } from "effect"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { jobSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"

const progressed = (jobId: string, percent: number): JobEvent => ({ _tag: "JobProgressed", v: 1, jobId, percent, at: 1_000 + percent })
const freshSubject = () => {
  const jobId = newId("job")
  return { jobId, subject: jobSubject(newId("prj"), jobId) }
}

/** Registers the contract's cases on an `it` whose layer provides the adapter under test. */
export const eventStoreContract = (it: Vitest.MethodsNonLive<EventStore>) => {
  it.effect("appends and reads a subject back in order; readLast is the newest", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const { jobId, subject } = freshSubject()
      const events = [progressed(jobId, 10), progressed(jobId, 20), progressed(jobId, 30)]
      const seqs: Array<number> = []
      for (const [i, event] of events.entries()) {
        const appended = yield* store.append(JobEvent, subject, event, { msgId: `${jobId}-${i}` })
        assert.isFalse(appended.duplicate)
        seqs.push(appended.seq)
      }
      const stored = yield* store.readSubject(JobEvent, subject)
      assert.deepStrictEqual(
        stored.map((s) => s.event),
        events
      )
      assert.deepStrictEqual(
        stored.map((s) => s.seq),
        seqs
      )
      assert.isTrue(stored.every((s) => s.subject === subject))

      const last = yield* store.readLast(JobEvent, subject)
      assert.deepStrictEqual(
        Option.map(last, (s) => [s.seq, s.event]),
        Option.some([seqs[2], events[2]])
      )
    })
  )

  it.effect("an empty subject reads as nothing", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const { subject } = freshSubject()
      assert.deepStrictEqual(yield* store.readSubject(JobEvent, subject), [])
      assert.isTrue(Option.isNone(yield* store.readLast(JobEvent, subject)))
    })
  )

  it.effect("a wrong expectedLastSeq fails with AppendConflict and stores nothing", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const { jobId, subject } = freshSubject()
      const first = yield* store.append(JobEvent, subject, progressed(jobId, 1), { msgId: `${jobId}-a`, expectedLastSeq: 0 })
      // A subject that already has an event is not empty any more.
      const conflict = yield* Effect.flip(
        store.append(JobEvent, subject, progressed(jobId, 2), { msgId: `${jobId}-b`, expectedLastSeq: 0 })
      )
      assert.strictEqual(conflict._tag, "AppendConflict")
      const stale = yield* Effect.flip(
        store.append(JobEvent, subject, progressed(jobId, 3), { msgId: `${jobId}-c`, expectedLastSeq: first.seq - 1 })
      )
      assert.strictEqual(stale._tag, "AppendConflict")
      const ok = yield* store.append(JobEvent, subject, progressed(jobId, 4), { msgId: `${jobId}-d`, expectedLastSeq: first.seq })
      assert.isTrue(ok.seq > first.seq)
      assert.deepStrictEqual(
        (yield* store.readSubject(JobEvent, subject)).map((s) => s.event),
        [progressed(jobId, 1), progressed(jobId, 4)]
      )
    })
  )

  it.effect("the same msgId twice stores one message; the second append reports duplicate", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const { jobId, subject } = freshSubject()
      const first = yield* store.append(JobEvent, subject, progressed(jobId, 5), { msgId: `${jobId}-once` })
      const second = yield* store.append(JobEvent, subject, progressed(jobId, 5), { msgId: `${jobId}-once` })
      assert.isFalse(first.duplicate)
      assert.isTrue(second.duplicate)
      assert.strictEqual(second.seq, first.seq)
      assert.strictEqual((yield* store.readSubject(JobEvent, subject)).length, 1)
    })
  )

  it.effect(
    "a conditional append retried after it was stored reports duplicate, not a conflict (nats-server 2.10+ checks the sequence first)",
    () =>
      Effect.gen(function* () {
        const store = yield* EventStore
        const { jobId, subject } = freshSubject()
        const first = yield* store.append(JobEvent, subject, progressed(jobId, 1), { msgId: `${jobId}-a`, expectedLastSeq: 0 })
        const second = yield* store.append(JobEvent, subject, progressed(jobId, 2), { msgId: `${jobId}-b`, expectedLastSeq: first.seq })
        // Both retried with their original expectations: each finds its own message, even the one no longer last.
        const retriedFirst = yield* store.append(JobEvent, subject, progressed(jobId, 1), { msgId: `${jobId}-a`, expectedLastSeq: 0 })
        const retriedSecond = yield* store.append(JobEvent, subject, progressed(jobId, 2), {
          msgId: `${jobId}-b`,
          expectedLastSeq: first.seq
        })
        assert.deepStrictEqual(retriedFirst, { seq: first.seq, duplicate: true })
        assert.deepStrictEqual(retriedSecond, { seq: second.seq, duplicate: true })
        // Another message with the same stale expectation is still a conflict.
        const stale = yield* Effect.flip(
          store.append(JobEvent, subject, progressed(jobId, 3), { msgId: `${jobId}-c`, expectedLastSeq: first.seq })
        )
        assert.strictEqual(stale._tag, "AppendConflict")
        assert.strictEqual((yield* store.readSubject(JobEvent, subject)).length, 2)
      })
  )

  it.effect("readSubject(afterSeq) returns only the later events", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const { jobId, subject } = freshSubject()
      const other = freshSubject()
      const a = yield* store.append(JobEvent, subject, progressed(jobId, 1), { msgId: `${jobId}-1` })
      // Interleaved messages of another subject must not show up.
      yield* store.append(JobEvent, other.subject, progressed(other.jobId, 9), { msgId: `${other.jobId}-1` })
      const b = yield* store.append(JobEvent, subject, progressed(jobId, 2), { msgId: `${jobId}-2` })
      const after = yield* store.readSubject(JobEvent, subject, a.seq)
      assert.deepStrictEqual(
        after.map((s) => s.seq),
        [b.seq]
      )
      assert.deepStrictEqual(yield* store.readSubject(JobEvent, subject, b.seq), [])
    })
  )

  it.effect("an event that does not fit the codec is not appended", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const { jobId, subject } = freshSubject()
      const bad = { ...progressed(jobId, 1), percent: 101 } as JobEvent
      const error = yield* Effect.flip(store.append(JobEvent, subject, bad, { msgId: `${jobId}-bad` }))
      assert.strictEqual(error._tag, "EventStoreError")
      assert.deepStrictEqual(yield* store.readSubject(JobEvent, subject), [])
    })
  )

  it.effect("appendBatch stores a decision's events together after the expected sequence; a retry of the stored batch is a duplicate", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const { jobId, subject } = freshSubject()
      const first = yield* store.append(JobEvent, subject, progressed(jobId, 1), { msgId: `${jobId}-1`, expectedLastSeq: 0 })
      const batch = [
        { event: progressed(jobId, 2), msgId: `${jobId}-2` },
        { event: progressed(jobId, 3), msgId: `${jobId}-3` }
      ]
      const appended = yield* store.appendBatch(JobEvent, subject, batch, { expectedLastSeq: first.seq })
      assert.isFalse(appended.duplicate)
      const stored = yield* store.readSubject(JobEvent, subject)
      assert.deepStrictEqual(
        stored.map((s) => s.event),
        [progressed(jobId, 1), progressed(jobId, 2), progressed(jobId, 3)]
      )
      // Stored consecutively; the result names the last.
      assert.deepStrictEqual(
        stored.map((s) => s.seq),
        [first.seq, appended.seq - 1, appended.seq]
      )
      const retried = yield* store.appendBatch(JobEvent, subject, batch, { expectedLastSeq: first.seq })
      assert.deepStrictEqual(retried, { seq: appended.seq, duplicate: true })
      assert.strictEqual((yield* store.readSubject(JobEvent, subject)).length, 3)
    })
  )

  it.effect("appendBatch with a stale expectation is an AppendConflict and stores none of its events", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const { jobId, subject } = freshSubject()
      yield* store.append(JobEvent, subject, progressed(jobId, 1), { msgId: `${jobId}-1`, expectedLastSeq: 0 })
      const conflict = yield* Effect.flip(
        store.appendBatch(
          JobEvent,
          subject,
          [
            { event: progressed(jobId, 2), msgId: `${jobId}-2` },
            { event: progressed(jobId, 3), msgId: `${jobId}-3` }
          ],
          { expectedLastSeq: 0 }
        )
      )
      assert.strictEqual(conflict._tag, "AppendConflict")
      assert.deepStrictEqual(
        (yield* store.readSubject(JobEvent, subject)).map((s) => s.event),
        [progressed(jobId, 1)]
      )
    })
  )
}
