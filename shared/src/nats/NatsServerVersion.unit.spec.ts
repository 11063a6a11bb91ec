// The minimum server version check: which versions pass, which are refused, and what the operator reads.
import { describe, expect, it } from "vitest"
import { MIN_NATS_SERVER_VERSION, unsupportedServerVersion } from "./NatsServerVersion.ts"

const url = "nats://n1:4222"

describe("unsupportedServerVersion", () => {
  it.each(["2.12.0", "2.12.3", "2.14.0", "v2.14.0", "3.0.0", "2.12.0-beta.1"])("accepts %s", (version) => {
    expect(unsupportedServerVersion(version, url)).toBeNull()
  })

  it.each(["2.11.9", "2.10.29", "2.9.10", "2.2.6", "1.4.1"])("refuses %s, naming the server, its version and the minimum", (version) => {
    const message = unsupportedServerVersion(version, url)
    expect(message).toContain(`nats-server ${version} at ${url} is too old`)
    expect(message).toContain(`${MIN_NATS_SERVER_VERSION} or newer`)
  })

  it.each([undefined, "", "unknown", "x.y"])("refuses a server that reports no version (%s)", (version) => {
    expect(unsupportedServerVersion(version, url)).toContain("did not report a version")
  })
})
