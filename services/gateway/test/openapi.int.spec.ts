// The served OpenAPI document: valid OpenAPI 3.1 (checked by a real validator), complete, and true of real responses.
import { apiErrorCodes, errorCatalogue } from "@mds/shared/api/ErrorCodes"
import { Validator } from "@seriousme/openapi-schema-validator"
import type { LightMyRequestResponse } from "fastify"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenApiConformance, openApiConformance } from "../../../test/support/OpenApiConformance.ts"
import { openApiPath } from "../src/docs/OpenApiDocument.ts"
import { v1Routes } from "../src/app/v1Routes.ts"
import { type Harness, startHarness } from "./GatewayHarness.ts"

let h: Harness
let key: string
let document: Record<string, any>
let conformance: OpenApiConformance

beforeAll(async () => {
  h = await startHarness()
  key = (await h.provisionKey()).key
  const response = await h.gateway.app.inject({ method: "GET", url: "/v1/openapi.json" })
  expect(response.statusCode).toBe(200)
  expect(response.headers["content-type"]).toMatch(/^application\/json/)
  document = response.json()
  conformance = openApiConformance(document)
})
afterAll(async () => {
  await h?.close()
})

const METHODS = ["get", "post", "put", "patch", "delete"]

const documentedOperations = () =>
  Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => METHODS.includes(key))
      .map((method) => `${method.toUpperCase()} ${path}`)
  )

const conforms = (method: string, path: string, response: LightMyRequestResponse) =>
  expect(conformance.problems({ method, path, status: response.statusCode, body: response.json() })).toEqual([])

describe("GET /v1/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator()
    const result = await validator.validate(document)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe("3.1")
  })

  it("documents exactly the /v1 routes the gateway serves", () => {
    const served = v1Routes.filter((route) => route.path.startsWith("/v1/")).map((route) => `${route.method} ${openApiPath(route.path)}`)
    expect(documentedOperations().sort()).toEqual(served.sort())
  })

  it("names every error code with its status, and each operation's error responses carry only codes of that status", () => {
    expect(document.components.schemas.ErrorCode.enum).toEqual(apiErrorCodes)
    const described: string = document.info.description
    for (const code of apiErrorCodes) expect(described).toContain(`| ${errorCatalogue[code].status} | \`${code}\` |`)
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
          const codeSchema = response.content?.["application/json"]?.schema?.properties?.error?.properties?.code
          if (codeSchema === undefined) continue
          const codes: ReadonlyArray<string> = codeSchema.enum ?? codeSchema.anyOf.flatMap((branch: any) => branch.enum)
          expect(codes.length, `${method} ${path} ${status}`).toBeGreaterThan(0)
          for (const code of codes) {
            expect(errorCatalogue[code as keyof typeof errorCatalogue]?.status, `${method} ${path} ${code}`).toBe(Number(status))
          }
        }
      }
    }
  })

  it("marks keyed operations as secured and names the scope", () => {
    const resolve = document.paths["/v1/media/resolve"].post
    expect(resolve.security).toEqual([{ ApiKey: [] }, { Bearer: [] }])
    expect(resolve["x-required-scope"]).toBe("media:resolve")
    expect(document.paths["/v1/health"].get.security).toEqual([])
    expect(document.components.securitySchemes.ApiKey).toMatchObject({ type: "apiKey", in: "header", name: "X-API-Key" })
  })
})

describe("real responses conform to the document", () => {
  const headers = () => ({ "content-type": "application/json", "x-api-key": key })
  const post = (url: string, payload: object) => h.gateway.app.inject({ method: "POST", url, headers: headers(), payload })
  /** The response, once it has the expected status and conforms to the document's operation. */
  const conforming = async (method: string, path: string, pending: Promise<LightMyRequestResponse>, status: number) => {
    const response = await pending
    expect(response.statusCode).toBe(status)
    conforms(method, path, response)
    return response
  }

  it("health, platforms, resolve, download and job", async () => {
    conforms("GET", "/v1/health", await h.gateway.app.inject({ method: "GET", url: "/v1/health" }))
    conforms("GET", "/v1/platforms", await h.gateway.app.inject({ method: "GET", url: "/v1/platforms", headers: headers() }))
    await h.publishCatalog(["Vimeo"], "openapi-catalog")
    await conforming("GET", "/v1/platforms", h.gateway.app.inject({ method: "GET", url: "/v1/platforms", headers: headers() }), 200)
    const resolved = await conforming("POST", "/v1/media/resolve", post("/v1/media/resolve", { url: "https://vimeo.com/76979871" }), 200)
    const download = { media_id: resolved.json().data.id, format: "video_best" }
    const queued = await conforming("POST", "/v1/media/download", post("/v1/media/download", download), 202)
    const job = h.gateway.app.inject({ method: "GET", url: `/v1/jobs/${queued.json().data.job_id}`, headers: headers() })
    await conforming("GET", "/v1/jobs/{jobId}", job, 200)
  })

  it("errors: authentication, validation, unknown job, unavailable media, bad link", async () => {
    const cases: ReadonlyArray<readonly [string, string, Promise<LightMyRequestResponse>]> = [
      ["POST", "/v1/media/resolve", h.gateway.app.inject({ method: "POST", url: "/v1/media/resolve", payload: { url: "x" } })],
      ["POST", "/v1/media/resolve", post("/v1/media/resolve", { url: 1 })],
      ["POST", "/v1/media/resolve", post("/v1/media/resolve", { url: "https://vimeo.com/private" })],
      ["POST", "/v1/media/download", post("/v1/media/download", { media_id: null, format: "video_best" })],
      [
        "POST",
        "/v1/media/download",
        h.gateway.app.inject({
          method: "POST",
          url: "/v1/media/download",
          headers: { ...headers(), "content-type": "text/plain" },
          payload: "{}"
        })
      ],
      ["GET", "/v1/jobs/{jobId}", h.gateway.app.inject({ method: "GET", url: "/v1/jobs/job_nope", headers: headers() })],
      ["GET", "/v1/files/{key}", h.gateway.app.inject({ method: "GET", url: "/v1/files/prj_x/job_x/a.mp4?expires=1&signature=x" })]
    ]
    const statuses = []
    for (const [method, path, pending] of cases) {
      const response = await pending
      statuses.push(response.statusCode)
      conforms(method, path, response)
    }
    expect(statuses).toEqual([401, 400, 422, 400, 415, 404, 403])
  })
})

describe("bodies the schema accepts", () => {
  it("a __proto__ or constructor key is dropped, not a reason to refuse the body", async () => {
    const { key: fresh } = await h.provisionKey()
    const response = await h.gateway.app.inject({
      method: "POST",
      url: "/v1/media/download",
      headers: { "content-type": "application/json", "x-api-key": fresh },
      payload: `{"__proto__": {"polluted": true}, "constructor": {"prototype": {}}, "format": "video_best", "url": "https://vimeo.com/proto"}`
    })
    expect(response.statusCode, response.body).toBe(202)
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
  })
})

describe("GET /docs", () => {
  it("serves the renderer's page and assets from this server, with no third-party URL", async () => {
    const page = await h.gateway.app.inject({ method: "GET", url: "/docs" })
    expect(page.statusCode).toBe(200)
    expect(page.headers["content-type"]).toMatch(/^text\/html/)
    expect(page.body).not.toMatch(/https?:\/\//)
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? "")
    expect(assets).toContain("/docs/swagger-ui-bundle.js")
    for (const asset of assets) {
      const response = await h.gateway.app.inject({ method: "GET", url: asset })
      expect(response.statusCode, asset).toBe(200)
      expect(response.rawPayload.length, asset).toBeGreaterThan(0)
    }
    const init = await h.gateway.app.inject({ method: "GET", url: "/docs/init.js" })
    expect(init.body).toContain("/v1/openapi.json")
    expect((await h.gateway.app.inject({ method: "GET", url: "/docs/package.json" })).statusCode).toBe(404)
  })
})
