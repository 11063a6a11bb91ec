// No message stops a shared consumer (real nats-server): a handler that keeps failing on one project's event parks it
// and every other project's events go on; a store that does not answer is retried, never parked; a replay after the fix
// applies the parked event exactly once; a dropped one is gone.
import { spawn } from "node:child_process"
import { join } from "node:path"
import { assert, layer } from "@effect/vitest"
import { createInbox } from "@nats-io/transport-node"
import { Effect, Layer, References, Schema } from "effect"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { JOBS_STREAM, jobSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { ReplayOutcome } from "@mds/shared/parked/ParkedMessage"
import { ParkedMessages } from "@mds/shared/parked/ParkedMessages"
import { ReadModelError } from "@mds/shared/readmodel/ReadModelError"
import { Parking } from "../src/consumers/Parking.ts"
import { ParkedReplays } from "../src/consumers/ParkedReplays.ts"
import { defaultAggregatorOptions, runProjections } from "../src/projections/Aggregator.ts"
import { projection } from "../src/projections/Projection.ts"
import { TestNats, TestNatsServer } from "../../../test/int/support/TestNats.ts"
import { eventuallyEffect } from "../../../test/support/Eventually.ts"
import { jobQueued, jobStarted } from "../../../test/support/JobEvents.ts"

const DURABLE = "test-parking-recorder"

/** A read model that counts how often each event was applied, and fails as told for some projects. */
const recorder = {
  applied: new Map<string, number>(),
  /** Projects whose events the handler fails on (a bug: a thrown error, counted). */
  broken: new Set<string>(),
  /** Projects whose store does not answer this many more times (transient, never counted). */
  unavailable: new Map<string, number>(),
  timesApplied: (subject: string, seq: number) => recorder.applied.get(`${subject}#${seq}`) ?? 0
}

const recording = projection({
  stream: JOBS_STREAM.name,
  durable: DURABLE,
  filter: jobSubject.all,
  decode: Schema.decodeUnknownEffect(Schema.fromJsonString(JobEvent)),
  project: (_event: JobEvent, message) =>
    Effect.suspend(() => {
      const projectId = message.subject.split(".")[2] ?? ""
      if (recorder.broken.has(projectId)) return Effect.die(new RangeError("Invalid time value"))
      const outages = recorder.unavailable.get(projectId) ?? 0
      if (outages > 0) {
        recorder.unavailable.set(projectId, outages - 1)
        return Effect.fail(new ReadModelError({ operation: "put", message: "connection refused", unavailable: true }))
      }
      const key = `${message.subject}#${message.seq}`
      recorder.applied.set(key, (recorder.applied.get(key) ?? 0) + 1)
      return Effect.void
    })
})

const stack = Layer.mergeAll(
  runProjections([recording], { ...defaultAggregatorOptions, retryDelayMs: 50 }),
  ParkedReplays,
  JetStreamEventStore
).pipe(
  Layer.provideMerge(Parking.layer),
  Layer.provideMerge(TestNats),
  // The failures it provokes are logged as warnings; the parks as errors.
  Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error"))
)

const decodeOutcome = Schema.decodeUnknownSync(Schema.fromJsonString(ReplayOutcome))

const CLI = join(import.meta.dirname, "..", "src", "cli", "main.ts")

/** The SRE CLI as a process, as an operator runs it (`npm run cli -- parked ...`). */
const cli = (natsUrl: string, args: ReadonlyArray<string>) =>
  Effect.promise(
    () =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [CLI, ...args], {
          env: { PATH: process.env["PATH"] ?? "", NATS_URL: natsUrl },
          stdio: ["ignore", "pipe", "pipe"]
        })
        let stdout = ""
        let stderr = ""
        child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
        child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
        child.once("error", reject)
        child.once("close", (code) => resolve({ code, stdout, stderr }))
      })
  )

layer(stack, { timeout: 120_000, excludeTestServices: true })("parked messages", (it) => {
  it.effect(
    "a handler failing on one project's event parks it after 5 failures; the others flow; a replay after the fix applies it once",
    () =>
      Effect.gen(function* () {
        const store = yield* EventStore
        const parked = yield* ParkedMessages
        const { connection, jsm } = yield* NatsClient
        const append = (projectId: string, jobId: string, event: JobEvent) =>
          Effect.map(store.append(JobEvent, jobSubject(projectId, jobId), event, { msgId: newId("job") }), (appended) => ({
            subject: jobSubject(projectId, jobId),
            seq: appended.seq
          }))
        const [noisy, quiet] = [newId("prj"), newId("prj")]
        const [noisyJob, quietJob] = [newId("job"), newId("job")]
        recorder.broken.add(noisy)

        const poisoned = yield* append(noisy, noisyJob, jobQueued(noisy, noisyJob, Date.now()))
        const before = yield* append(quiet, quietJob, jobQueued(quiet, quietJob, Date.now()))
        // The other project's event is applied while the poisoned one is being retried.
        yield* eventuallyEffect(
          Effect.sync(() => recorder.timesApplied(before.subject, before.seq)),
          (n) => n === 1,
          "the quiet project's first event applied"
        )
        const list = yield* eventuallyEffect(parked.list(DURABLE), (entries) => entries.length === 1, "the poisoned event parked")
        const entry = list[0]!
        assert.deepStrictEqual(
          { consumer: entry.message.consumer, stream: entry.message.stream, subject: entry.message.subject, seq: entry.message.seq },
          { consumer: DURABLE, stream: JOBS_STREAM.name, subject: poisoned.subject, seq: poisoned.seq }
        )
        assert.strictEqual(entry.message.attempts, 5)
        assert.include(entry.message.error, "Invalid time value")
        assert.strictEqual(JSON.parse(entry.message.data)._tag, "JobQueued")
        assert.strictEqual((yield* parked.counts).get(DURABLE), 1)

        // Acknowledged once parked: it holds none of the consumer's pending slots (1024 such messages stalled it for
        // every project), and the consumer goes on with everything after it.
        const after = yield* append(quiet, quietJob, jobStarted(quietJob, Date.now()))
        yield* eventuallyEffect(
          Effect.sync(() => recorder.timesApplied(after.subject, after.seq)),
          (n) => n === 1,
          "a later event applied"
        )
        const info = yield* eventuallyEffect(
          Effect.promise(() => jsm.consumers.info(JOBS_STREAM.name, DURABLE)),
          (consumer) => consumer.num_ack_pending === 0 && consumer.num_pending === 0,
          "nothing pending on the consumer"
        )
        assert.strictEqual(info.num_ack_pending, 0)
        assert.strictEqual(recorder.timesApplied(poisoned.subject, poisoned.seq), 0)

        // The fix, then the replay: applied once, gone from the parked messages; asking again finds nothing to do.
        recorder.broken.delete(noisy)
        const replay = (id: number) =>
          Effect.gen(function* () {
            const inbox = createInbox()
            const subscription = connection.subscribe(inbox, { max: 1 })
            const asked = yield* parked.requestReplay(entry, inbox)
            const outcome = yield* Effect.promise(async () => {
              for await (const message of subscription) return decodeOutcome(message.string())
              throw new Error("no outcome")
            }).pipe(Effect.timeout("20 seconds"))
            return { asked, outcome, id }
          })
        const first = yield* replay(entry.id)
        assert.strictEqual(first.asked, "requested")
        assert.deepStrictEqual(first.outcome, { id: entry.id, outcome: "replayed" })
        assert.strictEqual(recorder.timesApplied(poisoned.subject, poisoned.seq), 1)
        assert.deepStrictEqual(yield* parked.list(DURABLE), [])
        assert.isFalse((yield* parked.counts).has(DURABLE))
        const second = yield* replay(entry.id)
        assert.deepStrictEqual(second.outcome, { id: entry.id, outcome: "gone" })
        assert.strictEqual(recorder.timesApplied(poisoned.subject, poisoned.seq), 1)
      })
  )

  it.effect("the CLI lists a parked message; a replay that fails again parks it anew with the new error; a drop removes it", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const parked = yield* ParkedMessages
      const { url } = yield* TestNatsServer
      const projectId = newId("prj")
      const jobId = newId("job")
      recorder.broken.add(projectId)
      const appended = yield* store.append(JobEvent, jobSubject(projectId, jobId), jobQueued(projectId, jobId, Date.now()), {
        msgId: newId("job")
      })
      const [entry] = yield* eventuallyEffect(
        parked.list(DURABLE),
        (entries) => entries.some((e) => e.message.seq === appended.seq),
        "parked"
      )
      const listed = yield* cli(url, ["parked", "list", "--consumer", DURABLE])
      assert.strictEqual(listed.code, 0, listed.stderr)
      const [header, row] = listed.stdout.trim().split("\n")
      assert.strictEqual(header, "ID\tCONSUMER\tMESSAGE\tSUBJECT\tATTEMPTS\tPARKED AT\tERROR")
      assert.match(row ?? "", new RegExp(`^${entry!.id}\t${DURABLE}\tMDS_JOBS #${appended.seq}\t${jobSubject(projectId, jobId)}\t5\t`))
      assert.include(row, "Invalid time value")

      const replayed = yield* cli(url, ["parked", "replay", String(entry!.id), "--wait", "20"])
      assert.strictEqual(replayed.code, 1)
      assert.match(replayed.stdout, new RegExp(`^${entry!.id}\tfailed again, parked again as (\\d+): RangeError: Invalid time value`))
      const [again] = yield* parked.list(DURABLE)
      assert.strictEqual(again!.message.replayOf, entry!.id)
      assert.strictEqual(again!.message.attempts, entry!.message.attempts + 1)
      assert.strictEqual(again!.message.seq, appended.seq)

      const dropped = yield* cli(url, ["parked", "drop", String(again!.id)])
      assert.deepStrictEqual([dropped.code, dropped.stdout], [0, "dropped 1\n"])
      assert.deepStrictEqual(yield* cli(url, ["parked", "list"]), { code: 0, stdout: "no parked messages\n", stderr: "" })
      const gone = yield* cli(url, ["parked", "replay", String(again!.id)])
      assert.deepStrictEqual(
        [gone.code, gone.stdout],
        [1, `${again!.id}\tgone: nothing parked under that id (replayed or dropped before)\n`]
      )
      recorder.broken.delete(projectId)
      assert.strictEqual(recorder.timesApplied(jobSubject(projectId, jobId), appended.seq), 0)
    })
  )

  it.effect("a store that does not answer is retried past 5 failures and never parked", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const parked = yield* ParkedMessages
      const projectId = newId("prj")
      const jobId = newId("job")
      recorder.unavailable.set(projectId, 12)
      const subject = jobSubject(projectId, jobId)
      const appended = yield* store.append(JobEvent, subject, jobQueued(projectId, jobId, Date.now()), { msgId: newId("job") })
      yield* eventuallyEffect(
        Effect.sync(() => recorder.timesApplied(subject, appended.seq)),
        (n) => n === 1,
        "applied once it answered"
      )
      assert.strictEqual(recorder.unavailable.get(projectId), 0)
      assert.deepStrictEqual(yield* parked.list(DURABLE), [])
    })
  )
})
