// What a confined tool's environment keeps from the extractor's, and which proxy settings it gets.
import { describe, expect, it } from "vitest"
import { childEnvironment, WITHOUT_CURL_CFFI } from "./ChildEnvironment.ts"

const extractorEnv = {
  PATH: "/usr/bin",
  HOME: "/home/node",
  LC_ALL: "C.UTF-8",
  no_proxy: "127.0.0.1,localhost",
  NO_PROXY: ".svc,169.254.169.254",
  http_proxy: "http://corporate:3128",
  ALL_PROXY: "socks5://elsewhere:1080",
  S3_SECRET_ACCESS_KEY: "secret",
  NATS_URL: "nats://nats:4222"
}

describe("childEnvironment", () => {
  it("keeps what tools need to run and drops proxies, exceptions to proxies and secrets", () => {
    expect(childEnvironment(extractorEnv, null)).toEqual({ PATH: "/usr/bin", HOME: "/home/node", LC_ALL: "C.UTF-8" })
  })

  it("sets the run's own egress proxy as the only proxy, with no no_proxy of any spelling", () => {
    const env = childEnvironment(extractorEnv, "http://127.0.0.1:4100")
    const proxyNames = Object.keys(env)
      .filter((name) => /proxy/i.test(name))
      .sort()
    expect(proxyNames).toEqual(["HTTPS_PROXY", "HTTP_PROXY", "http_proxy", "https_proxy"])
    expect(new Set(proxyNames.map((name) => env[name]))).toEqual(new Set(["http://127.0.0.1:4100"]))
  })

  it("keeps curl_cffi out of a run that impersonates nothing, and never passes an inherited PYTHONPATH", () => {
    const inherited = { ...extractorEnv, PYTHONPATH: "/somewhere/else" }
    expect(childEnvironment(inherited, null, true)["PYTHONPATH"]).toBe(WITHOUT_CURL_CFFI)
    expect(childEnvironment(inherited, null)).not.toHaveProperty("PYTHONPATH")
  })
})
