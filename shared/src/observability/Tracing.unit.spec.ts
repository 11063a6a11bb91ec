// Given the OTEL endpoint variables, then where traces are sent (the OTLP exporter specification's rules).
import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { tracesUrl } from "./Tracing.ts"

describe("tracesUrl", () => {
  it("appends /v1/traces to the base endpoint; a traces endpoint is used as is; empty means off", () => {
    expect(tracesUrl(Option.none(), Option.some("http://collector:4318"))).toEqual(Option.some("http://collector:4318/v1/traces"))
    expect(tracesUrl(Option.none(), Option.some("http://collector:4318/"))).toEqual(Option.some("http://collector:4318/v1/traces"))
    expect(tracesUrl(Option.some("http://c/custom"), Option.some("http://other"))).toEqual(Option.some("http://c/custom"))
    expect(tracesUrl(Option.none(), Option.some(""))).toEqual(Option.none())
    expect(tracesUrl(Option.some(" "), Option.none())).toEqual(Option.none())
  })
})
