// GET /v1/jobs/:jobId through its one path: every answer of a poll sequence (success, limits, not found, bad keys),
// and, with traces exported, the same answers from the same steps under the request's server span.
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { jobSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { hashSecret, keyIdFromHash } from "@mds/shared/keys/ApiKeySecret"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../../../test/support/Eventually.ts"
import { completedJob, jobQueued } from "../../../test/support/JobEvents.ts"
import { type OtlpCollector, startOtlpCollector } from "../../../test/support/OtlpCollector.ts"
import { runAdminCommand } from "../src/cli/runAdminCommand.ts"
import { type GatewayInstance, type Harness, PEPPER, startGateway, startHarness } from "./GatewayHarness.ts"

const LIMITS = { API_RATE_LIMIT_PER_MINUTE: "8", API_MIN_POLL_INTERVAL_SECONDS: "0.3" }

let h: Harness
let collector: OtlpCollector
let traced: GatewayInstance

const appendJob = (projectId: string, events: (jobId: string, now: number) => ReadonlyArray<JobEvent>) =>
  h.gateway.run(
    Effect.gen(function* () {
      const store = yield* EventStore
      const jobId = newId("job")
      for (const [i, event] of events(jobId, Date.now()).entries()) {
        yield* store.append(JobEvent, jobSubject(projectId, jobId), event, { msgId: `${event._tag}:${jobId}:${i}` })
      }
      return jobId
    })
  )

const read = async (gateway: GatewayInstance, jobId: string, headers: Record<string, string>) => {
  const response = await gateway.app.inject({ method: "GET", url: `/v1/jobs/${jobId}`, headers })
  return {
    status: response.statusCode,
    body: response.json(),
    remaining: response.headers["ratelimit-remaining"],
    retryAfter: response.headers["retry-after"]
  }
}

// A fixed wait, on purpose: the minimum poll interval is judged on the gateway's own clock between two reads, so a
// step of the sequence waits it out (350 ms for 0.3 s) or not (0) to get the answer it checks.
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

beforeAll(async () => {
  collector = await startOtlpCollector()
  h = await startHarness(LIMITS)
  traced = await startGateway({ ...h.env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })
}, 60_000)

afterAll(async () => {
  await traced?.close()
  await h?.close()
  await collector?.close()
})

/** The same sequence on a gateway with or without exported traces: the answers depend on the requests alone. */
const pollSequence = async (gateway: GatewayInstance) => {
  const mine = await h.provisionKey()
  const other = await h.provisionKey()
  const fresh = await h.provisionKey({ projectId: mine.projectId })
  const done = await appendJob(mine.projectId, (jobId, now) => completedJob(mine.projectId, jobId, now))
  const waiting = await appendJob(mine.projectId, (jobId, now) => [jobQueued(mine.projectId, jobId, now)])
  const theirs = await appendJob(other.projectId, (jobId, now) => completedJob(other.projectId, jobId, now))
  const key = { "x-api-key": mine.key }

  const steps: Array<[string, Record<string, string>, number]> = [
    [done, key, 350], // first read of a completed job: loaded, its link signed
    [done, key, 0], // again later: from memory
    [done, key, 350], // at once: polling too fast
    [waiting, key, 0],
    [theirs, key, 0], // another project's job
    [newId("job"), key, 0], // no such job
    ["not-a-job", key, 350], // a malformed id
    [done, key, 0],
    [done, { "x-api-key": fresh.key }, 0], // a key of the project, first use
    [done, {}, 0], // no key
    [done, { "x-api-key": `svc_test_${"A".repeat(40)}` }, 0], // a key that does not exist
    [waiting, key, 0] // the key's ninth request in the minute
  ]
  const answers = []
  for (const [jobId, headers, wait] of steps) {
    answers.push(await read(gateway, jobId, headers))
    await pause(wait)
  }
  return { answers, done, fresh }
}

describe("GET /v1/jobs/:jobId", () => {
  for (const tracing of [false, true]) {
    it(`answers a poll sequence by the rules${tracing ? ", with traces exported" : ""}`, async () => {
      const gateway = tracing ? traced : h.gateway
      const { answers, done } = await pollSequence(gateway)
      expect(answers.map((a) => a.status).join(" ")).toBe("200 200 429 200 404 404 404 200 200 401 401 429")
      const [first, second, tooFast] = answers
      expect(first!.body.data).toMatchObject({ id: done, status: "completed", progress: 100 })
      expect(first!.body.data.result.download_url).toMatch(/^http:\/\/gateway\.test\/v1\/files\//)
      // Built once per view: the second answer is the first one again.
      expect(second!.body).toEqual(first!.body)
      expect(tooFast!.body.error.code).toBe("polling_too_fast")
      expect(tooFast!.retryAfter).toBeDefined()
      // Every request of a valid key counts, refused or not; the ninth in the minute is refused.
      expect(answers.map((a) => a.remaining).slice(0, 8)).toEqual(["7", "6", "5", "4", "3", "2", "1", "0"])
      expect(answers[11]!.body.error.code).toBe("rate_limit_exceeded")
      expect(answers.map((a) => a.body.error?.code ?? "ok").slice(4, 11)).toEqual([
        "job_not_found",
        "job_not_found",
        "job_not_found",
        "ok",
        "ok",
        "missing_api_key",
        "invalid_api_key"
      ])
    })
  }

  it("refuses a revoked key once the gateway's key directory has the revocation", async () => {
    const { done, fresh } = await pollSequence(h.gateway)
    await h.gateway.run(runAdminCommand({ _tag: "RevokeKey", key: keyIdFromHash(hashSecret(PEPPER, fresh.key)) }))
    const refused = await eventually(
      () => read(h.gateway, done, { "x-api-key": fresh.key }),
      (a) => a.status === 401,
      "the revocation"
    )
    expect(refused.body.error.code).toBe("revoked_api_key")
  })

  it("with traces exported, a read is one server span, and the read of a job state not in memory is a child of it", async () => {
    const mine = await h.provisionKey()
    const done = await appendJob(mine.projectId, (jobId, now) => completedJob(mine.projectId, jobId, now))
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
    const answer = await traced.app.inject({
      method: "GET",
      url: `/v1/jobs/${done}`,
      headers: { "x-api-key": mine.key, traceparent: `00-${traceId}-00f067aa0ba902b7-01` }
    })
    expect(answer.statusCode).toBe(200)
    const spans = await eventually(
      async () => collector.spans.filter((span) => span.traceId === traceId),
      (found) => found.some((span) => span.name === "JobStates.current"),
      "the job read's spans"
    )
    const server = spans.find((span) => span.name === "GET /v1/jobs/:jobId")
    expect(server, JSON.stringify(spans)).toBeDefined()
    expect(server!.parentSpanId).toBe("00f067aa0ba902b7")
    expect(server!.attributes["http.response.status_code"]).toBe(200)
    const load = spans.find((span) => span.name === "JobStates.current")!
    expect(load.parentSpanId).toBe(server!.spanId)
  })
})
