// GET /v1/health lists the aggregator's stream followers (expiry, tally) beside the gateway's own, as the aggregator
// reports them over NATS, and drops them once no aggregator answers; it and the aggregator's /metrics show the messages
// each consumer parked.
import { ConfigProvider, Effect, Layer, ManagedRuntime, References } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AggregatorLayer } from "../../../services/aggregator/src/AggregatorLayer.ts"
import { type Harness, startHarness } from "../../../services/gateway/test/GatewayHarness.ts"
import { eventually } from "../../support/Eventually.ts"
import { freePort } from "../../support/NatsServer.ts"
import { family, parsePrometheusText } from "../../support/PrometheusText.ts"
import { ParkedMessages } from "@mds/shared/parked/ParkedMessages"

let h: Harness
let aggregator: { dispose(): Promise<void>; runPromise<A, E>(effect: Effect.Effect<A, E, ParkedMessages>): Promise<A> } | undefined
let metricsPort: number

beforeAll(async () => {
  h = await startHarness()
  metricsPort = await freePort()
  const env = { ...h.env, METRICS_PORT: String(metricsPort) }
  const runtime = ManagedRuntime.make(
    AggregatorLayer.pipe(
      Layer.provideMerge(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))),
      Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, "Error")),
      Layer.orDie
    )
  )
  await runtime.runPromise(Effect.void)
  aggregator = runtime
}, 60_000)

afterAll(async () => {
  await aggregator?.dispose()
  await h?.close()
})

const healthFollowers = async (): Promise<Record<string, string>> =>
  (await h.gateway.app.inject({ method: "GET", url: "/v1/health" })).json().data.followers

describe("GET /v1/health, /metrics and parked messages", () => {
  it("count each consumer's parked messages, none by default", async () => {
    const health = async () => (await h.gateway.app.inject({ method: "GET", url: "/v1/health" })).json().data
    expect((await health()).parked_messages).toEqual({})
    const parked = (consumer: string, seq: number) =>
      // As an aggregator's consumer parks a message its handler kept failing on.
      aggregator!.runPromise(
        Effect.flatMap(ParkedMessages, (messages) =>
          messages.park({
            v: 1,
            consumer,
            stream: "MDS_JOBS",
            subject: "mds.job.prj_x.job_x",
            seq,
            data: "{}",
            headers: {},
            error: "RangeError: Invalid time value",
            attempts: 5,
            parkedAt: Date.now()
          })
        )
      )
    await parked("aggregator-usage", 7)
    await parked("aggregator-usage", 8)
    await parked("aggregator-subscription-webhooks", 9)
    // The health view reads MDS_PARKED at most every 5 s.
    await eventually(
      health,
      (data) => data.parked_messages?.["aggregator-usage"] === 2 && data.parked_messages?.["aggregator-subscription-webhooks"] === 1,
      "the parked messages in /v1/health",
      20_000
    )
    const metrics = await eventually(
      async () => family(parsePrometheusText(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()), "mds_parked_messages"),
      (found) => found.samples.some((sample) => sample.labels["consumer"] === "aggregator-usage" && sample.value === 2),
      "mds_parked_messages"
    )
    expect(metrics.samples.find((sample) => sample.labels["consumer"] === "aggregator-subscription-webhooks")?.value).toBe(1)
    expect(metrics.samples.find((sample) => sample.labels["consumer"] === "aggregator-jobs")?.value).toBe(0)
  }, 60_000)

  it("lists the aggregator's expiry and tally followers (the subscription checks follow nothing), and drops them once the aggregator is gone", async () => {
    const seen = await eventually(
      healthFollowers,
      (followers) =>
        followers["aggregator.expiry_jobs"] === "following" &&
        followers["aggregator.expiry_media"] === "following" &&
        followers["aggregator.job_tally"] === "following",
      "the aggregator's followers in /v1/health"
    )
    // The subscription checks ask for each subscription's state: no view of theirs to report.
    expect(seen["aggregator.subscriptions"]).toBeUndefined()
    // The gateway's own are still there (listed; on a loaded machine a probe may come late and show one recovering).
    expect(["following", "recovering"]).toContain(seen["keys"])

    await aggregator?.dispose()
    aggregator = undefined
    await eventually(
      healthFollowers,
      (followers) => Object.keys(followers).every((name) => !name.startsWith("aggregator.")),
      "the aggregator's followers gone from /v1/health"
    )
  }, 60_000)
})
