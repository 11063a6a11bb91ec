// Which JetStream answers a starting service waits out (a cluster still settling), and how it waits.
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream"
import { errors } from "@nats-io/transport-node"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { isSettlingAnswer, nullWhenNotFound, untilSettled } from "./ClusterSettling.ts"

const apiError = (err_code: number, description: string) => new JetStreamApiError({ code: 503, err_code, description })

describe("isSettlingAnswer", () => {
  it("is true of a timeout, JetStream temporarily unavailable and no peers yet for placement, also as a cause", () => {
    expect(isSettlingAnswer(new errors.TimeoutError())).toBe(true)
    expect(isSettlingAnswer(apiError(10008, "JetStream system temporarily unavailable"))).toBe(true)
    expect(isSettlingAnswer(apiError(10005, "no suitable peers for placement"))).toBe(true)
    expect(isSettlingAnswer(new Error("request failed", { cause: new errors.TimeoutError() }))).toBe(true)
  })

  it("is false of what waiting does not change: a refused config, JetStream not enabled, anything else", () => {
    expect(isSettlingAnswer(apiError(10074, "replicas > 1 not supported in non-clustered mode"))).toBe(false)
    expect(isSettlingAnswer(apiError(JetStreamApiCodes.StreamNotFound, "stream not found"))).toBe(false)
    expect(isSettlingAnswer(new Error("jetstream is not enabled"))).toBe(false)
    expect(isSettlingAnswer("timeout")).toBe(false)
  })
})

describe("untilSettled", () => {
  it("tries again after a settling answer and gives the first result", async () => {
    let calls = 0
    const result = await Effect.runPromise(
      untilSettled(async () => {
        calls++
        if (calls < 3) throw new errors.TimeoutError()
        return "created"
      })
    )
    expect({ result, calls }).toEqual({ result: "created", calls: 3 })
  })

  it("fails at once, with the cause, on any other answer", async () => {
    let calls = 0
    const refused = apiError(10074, "replicas > 1 not supported in non-clustered mode")
    const exit = await Effect.runPromise(
      Effect.flip(
        untilSettled(async () => {
          calls++
          throw refused
        })
      )
    )
    expect({ exit, calls }).toEqual({ exit: refused, calls: 1 })
  })
})

describe("nullWhenNotFound", () => {
  it("reads only the given not-found answer as absent; a timeout stays a failure", () => {
    const streamNotFound = nullWhenNotFound(JetStreamApiCodes.StreamNotFound)
    expect(streamNotFound(apiError(JetStreamApiCodes.StreamNotFound, "stream not found"))).toBeNull()
    expect(() => streamNotFound(new errors.TimeoutError())).toThrow("timeout")
    expect(() => streamNotFound(apiError(JetStreamApiCodes.ConsumerNotFound, "consumer not found"))).toThrow("consumer not found")
  })
})
