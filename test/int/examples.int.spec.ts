// Runs the example subscriber under examples/ as a process against a real nats-server: it prints one project's job events only.
import { spawn } from "node:child_process"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { type JobEvent, JobEvent as JobEventCodec } from "@mds/shared/domain/job/JobEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { jobSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { TestNats, TestNatsServer } from "./support/TestNats.ts"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"

const queued = (projectId: string, jobId: string): JobEvent => ({
  _tag: "JobQueued",
  v: 1,
  jobId,
  projectId,
  platform: "vimeo",
  format: parseFormatId("audio_mp3"),
  source: { url: "https://vimeo.com/1", mediaId: null },
  createdAt: 1,
  expiresAt: 2
})

/** Runs the example until it printed `lines` lines, then stops it with SIGTERM (it follows the stream forever). */
const runExample = (natsUrl: string, projectId: string, lines: number) =>
  new Promise<Array<string>>((resolve, reject) => {
    // Killed after 20 s at most: then it printed too little.
    const child = spawn(process.execPath, ["examples/project-job-events.ts", projectId], {
      env: { ...process.env, NATS_URL: natsUrl },
      timeout: 20_000,
      killSignal: "SIGKILL"
    })
    let out = ""
    let enough = false
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const printed = out.split("\n").filter((l) => l !== "")
      if (printed.length >= lines && !enough) {
        enough = true
        child.kill("SIGTERM")
        child.once("exit", () => resolve(printed))
      }
    })
    child.once("exit", () => {
      if (!enough) reject(new Error(`example printed only:\n${out}`))
    })
  })

layer(JetStreamEventStore.pipe(Layer.provideMerge(TestNats)), { timeout: 60_000, excludeTestServices: true })(
  "examples/project-job-events.ts",
  (it) => {
    it.effect("prints the history and live events of one project's jobs, folded, and skips what does not decode", () =>
      Effect.gen(function* () {
        const store = yield* EventStore
        const { js } = yield* NatsClient
        const server = yield* TestNatsServer
        const mine = newId("prj")
        const other = newId("prj")
        const job = newId("job")
        yield* store.append(JobEventCodec, jobSubject(mine, job), queued(mine, job), { msgId: `q-${job}` })
        yield* store.append(JobEventCodec, jobSubject(other, job), queued(other, job), { msgId: `q-other-${job}` })
        yield* Effect.promise(() => js.publish(jobSubject(mine, job), '{"_tag":"JobStarted","v":99}'))
        const running = Effect.promise(() => runExample(server.url, mine, 3))
        const live = store.append(
          JobEventCodec,
          jobSubject(mine, job),
          { _tag: "JobProgressed", v: 1, jobId: job, percent: 40, at: 3 },
          { msgId: `p-${job}` }
        )
        const [printed] = yield* Effect.all([running, Effect.delay(live, "1500 millis")], { concurrency: 2 })
        assert.match(printed[0]!, new RegExp(`^\\d+ ${job} JobQueued -> queued 0%$`))
        assert.match(printed[1]!, new RegExp(`^\\d+ ${job} \\(undecodable message skipped\\)$`))
        assert.match(printed[2]!, new RegExp(`^\\d+ ${job} JobProgressed -> queued 40%$`))
      })
    )
  }
)
