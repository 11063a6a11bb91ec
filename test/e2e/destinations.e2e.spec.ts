// End to end: a project's destinations through the API (create, list, read, test, remove), kept from other projects,
// and credentials that never come back out: not in answers, not in the services' logs, not in the stream's bytes.
import { mkdtemp, readdir } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import { jetstreamManager } from "@nats-io/jetstream"
import { Client } from "minio"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DESTINATIONS_STREAM } from "@mds/shared/nats/Subjects"
import { freePort } from "../support/NatsServer.ts"
import { type MotoServer, startMotoServer } from "../support/MotoServer.ts"
import { startServiceStack, type ServiceStack } from "../support/ServiceStack.ts"
import { apiRequest, describeResponse } from "./ApiClient.ts"
import { runCli } from "../../packages/client/src/cli/runCli.ts"

const ACCESS_KEY = "AKIADESTINATIONE2E01"
const SECRET = "s3cr3t-destination-e2e-0123456789abcdef"
const BUCKET = "mds-e2e-library"
const LIMIT = 3

let stack: ServiceStack
let moto: MotoServer
let strictMoto: MotoServer
let nc: NatsConnection
let base: string
let key: string
let otherKey: string

beforeAll(async () => {
  ;[moto, strictMoto] = await Promise.all([startMotoServer(), startMotoServer({ INITIAL_NO_AUTH_ACTION_COUNT: "0" })])
  const url = new URL(moto.endpoint)
  await new Client({ endPoint: url.hostname, port: Number(url.port), useSSL: false, accessKey: "a", secretKey: "b" }).makeBucket(
    BUCKET,
    "us-east-1"
  )
  stack = await startServiceStack({
    env: {
      // The test's S3 servers are on loopback: allowed the way an operator allows an internal endpoint.
      EGRESS_ALLOW: [url.host, new URL(strictMoto.endpoint).host].join(","),
      DESTINATIONS_PER_PROJECT: String(LIMIT)
    }
  })
  base = stack.baseUrl
  key = (await stack.provisionKey()).key
  otherKey = (await stack.provisionKey()).key
  nc = await connect({ servers: stack.nats.url })
}, 180_000)

afterAll(async () => {
  await nc?.close()
  await stack?.close()
  await Promise.all([moto?.close(), strictMoto?.close()])
})

const s3Body = (overrides: Record<string, unknown> = {}) => ({
  name: "Home library",
  type: "s3",
  endpoint: moto.endpoint,
  bucket: BUCKET,
  region: "us-east-1",
  prefix: "media/shows",
  access_key_id: ACCESS_KEY,
  secret_access_key: SECRET,
  ...overrides
})

const create = (body: unknown, as = key) => apiRequest(base, "POST", "/destinations", { key: as, json: body })
const context = (response: { status: number; text: string }) => `${describeResponse(response as never)}\n${stack.logs()}`

describe("destinations through the API", () => {
  let destinationId: string

  it("creates an S3 destination and answers it with the access key masked and no secret", async () => {
    const created = await create(s3Body())
    expect(created.status, context(created)).toBe(201)
    destinationId = created.body.data.id
    expect(destinationId).toMatch(/^dst_[a-z2-7]{24}$/)
    expect(created.body.data).toMatchObject({
      name: "Home library",
      type: "s3",
      created_by: "project",
      endpoint: moto.endpoint,
      bucket: BUCKET,
      prefix: "media/shows/"
    })
    expect(created.body.data.access_key_id).toBe(`****${ACCESS_KEY.slice(-4)}`)
    expect(created.text).not.toContain(SECRET)
    expect(created.text).not.toContain(ACCESS_KEY)
  })

  it("lists and reads it, never with a credential", async () => {
    const listed = await apiRequest(base, "GET", "/destinations", { key })
    expect(listed.status, context(listed)).toBe(200)
    expect(listed.body.data.map((d: { id: string }) => d.id)).toEqual([destinationId])
    const read = await apiRequest(base, "GET", `/destinations/${destinationId}`, { key })
    expect(read.status, context(read)).toBe(200)
    for (const text of [listed.text, read.text]) {
      expect(text).not.toContain(SECRET)
      expect(text).not.toContain(ACCESS_KEY)
    }
  })

  it("a test writes and removes a probe object in the bucket", async () => {
    const tested = await apiRequest(base, "POST", `/destinations/${destinationId}/test`, { key })
    expect(tested.status, context(tested)).toBe(200)
    expect(tested.body.data, context(tested)).toMatchObject({ ok: true, step: null, error: null })
    const url = new URL(moto.endpoint)
    const client = new Client({ endPoint: url.hostname, port: Number(url.port), useSSL: false, accessKey: "a", secretKey: "b" })
    const left: Array<string> = []
    for await (const item of client.listObjectsV2(BUCKET, "media/shows/", true)) if (item.name !== undefined) left.push(item.name)
    expect(left).toEqual([])
  })

  it("a test with wrong credentials answers the write step denied; a loopback endpoint not allowed is refused at creation", async () => {
    const denied = await create(s3Body({ name: "Wrong keys", endpoint: strictMoto.endpoint }))
    expect(denied.status, context(denied)).toBe(201)
    const deniedTest = await apiRequest(base, "POST", `/destinations/${denied.body.data.id}/test`, { key })
    expect(deniedTest.body.data, context(deniedTest)).toMatchObject({ ok: false, step: "write", error: { code: "destination_denied" } })
    expect(deniedTest.text).not.toContain(SECRET)
    expect(deniedTest.text).not.toContain(ACCESS_KEY)
    await apiRequest(base, "DELETE", `/destinations/${denied.body.data.id}`, { key })

    const closed = `http://127.0.0.1:${await freePort()}`
    const notAllowed = await create(s3Body({ name: "Nobody home", endpoint: closed }))
    // The closed port is on loopback and not in EGRESS_ALLOW: refused at the door.
    expect(notAllowed.status, context(notAllowed)).toBe(422)
    expect(notAllowed.body.error.code).toBe("url_not_allowed")
  })

  it("another project can neither see, test nor remove it", async () => {
    for (const [method, path] of [
      ["GET", `/destinations/${destinationId}`],
      ["POST", `/destinations/${destinationId}/test`],
      ["DELETE", `/destinations/${destinationId}`]
    ] as const) {
      const response = await apiRequest(base, method, path, { key: otherKey })
      expect(response.status, context(response)).toBe(404)
      expect(response.body.error.code).toBe("destination_not_found")
    }
    const listed = await apiRequest(base, "GET", "/destinations", { key: otherKey })
    expect(listed.body.data).toEqual([])
  })

  it("refuses a folder (only the operator gives one) and values past their bounds", async () => {
    const folder = await create({ name: "Disk", type: "folder", path: "/etc" })
    expect(folder.status, context(folder)).toBe(400)
    expect(folder.body.error.message).toContain("operator")
    for (const bad of [
      { name: "" },
      { name: "x".repeat(101) },
      { bucket: "Not_A_Bucket" },
      { prefix: "../up" },
      { prefix: "x".repeat(513) },
      { region: "US EAST" },
      { endpoint: "ftp://example.com" },
      { endpoint: `${moto.endpoint}/path` },
      { access_key_id: "ab" },
      { secret_access_key: "short" }
    ]) {
      const response = await create(s3Body(bad))
      expect(response.status, `${JSON.stringify(bad)}: ${context(response)}`).toBe(400)
      expect(response.body.error.code).toBe("invalid_request")
    }
  })

  it("a key without media:download may not manage destinations", async () => {
    const resolveOnly = (await stack.provisionKey({ scopes: ["media:resolve"] })).key
    const response = await apiRequest(base, "GET", "/destinations", { key: resolveOnly })
    expect(response.status, context(response)).toBe(403)
    expect(response.body.error.code).toBe("insufficient_scope")
  })

  it("caps a project's destinations at DESTINATIONS_PER_PROJECT", async () => {
    const fresh = (await stack.provisionKey()).key
    for (let i = 0; i < LIMIT; i++) expect((await create(s3Body({ name: `d${i}` }), fresh)).status).toBe(201)
    const over = await create(s3Body({ name: "one too many" }), fresh)
    expect(over.status, context(over)).toBe(429)
    expect(over.body.error.code).toBe("destination_limit_reached")
  })

  it("removes it: gone from the list, and a second removal is not found", async () => {
    const removed = await apiRequest(base, "DELETE", `/destinations/${destinationId}`, { key })
    expect(removed.status, context(removed)).toBe(200)
    expect(removed.body.data).toEqual({ id: destinationId, removed: true })
    expect((await apiRequest(base, "GET", "/destinations", { key })).body.data).toEqual([])
    const again = await apiRequest(base, "DELETE", `/destinations/${destinationId}`, { key })
    expect(again.status).toBe(404)
  })

  it("the operator gives a project a folder: listed without its path, tested by writing into it, kept from others", async () => {
    const { projectId, key: folderKey } = await stack.provisionKey()
    const folder = await mkdtemp(join(tmpdir(), "mds-e2e-library-"))
    const id = await stack.cli(["destination", "add-folder", "--project", projectId, "--name", "Plex library", "--path", folder])
    expect(id).toMatch(/^dst_[a-z2-7]{24}$/)
    const listed = await apiRequest(base, "GET", "/destinations", { key: folderKey })
    expect(listed.body.data, context(listed)).toMatchObject([{ id, name: "Plex library", type: "folder", created_by: "operator" }])
    expect(listed.text).not.toContain(folder)
    const tested = await apiRequest(base, "POST", `/destinations/${id}/test`, { key: folderKey })
    expect(tested.body.data, context(tested)).toMatchObject({ ok: true })
    expect(await readdir(folder)).toEqual([])
    expect((await apiRequest(base, "POST", `/destinations/${id}/test`, { key: otherKey })).status).toBe(404)
    await expect(stack.cli(["destination", "add-folder", "--project", projectId, "--name", "x", "--path", "relative/dir"])).rejects.toThrow(
      "absolute"
    )
    await expect(
      stack.cli(["destination", "add-folder", "--project", projectId, "--name", "x", "--path", join(folder, "missing")])
    ).rejects.toThrow()
  })

  it("mds destinations: add (keys from the environment), list, test, remove", async () => {
    const { key: cliKey } = await stack.provisionKey()
    let out = ""
    const io = (extra: Record<string, string> = {}) => ({
      stdout: { write: (text: string) => void (out += text) },
      stderr: { write: (text: string) => void (out += text) },
      env: { MDS_API_KEY: cliKey, MDS_URL: base.replace(/\/v1$/, ""), ...extra },
      cwd: process.cwd()
    })
    const keys = { MDS_DESTINATION_ACCESS_KEY_ID: ACCESS_KEY, MDS_DESTINATION_SECRET_ACCESS_KEY: SECRET }
    const added = await runCli(
      ["destinations", "add", "--name", "cli", "--endpoint", moto.endpoint, "--bucket", BUCKET, "--json"],
      io(keys)
    )
    expect(added, out).toBe(0)
    const id = JSON.parse(out).id as string
    expect(out).not.toContain(SECRET)
    out = ""
    expect(await runCli(["destinations"], io()), out).toBe(0)
    expect(out).toContain(id)
    out = ""
    expect(await runCli(["destinations", "test", id], io()), out).toBe(0)
    expect(out).toContain("ok")
    out = ""
    expect(await runCli(["destinations", "remove", id], io()), out).toBe(0)
    expect(await runCli(["destinations", "test", id], io()), out).toBe(1)
    expect(out).toContain("destination_not_found")
  })

  it("the credentials are nowhere in clear: not in the services' logs, not in the stream's bytes", async () => {
    expect(stack.logs()).not.toContain(SECRET)
    expect(stack.logs()).not.toContain(ACCESS_KEY)
    const jsm = await jetstreamManager(nc)
    const raw: Array<Uint8Array> = []
    for (let seq = 1; ; ) {
      const msg = await jsm.direct.getMessage(DESTINATIONS_STREAM.name, { seq, next_by_subj: DESTINATIONS_STREAM.all })
      if (msg === null) break
      raw.push(msg.data)
      seq = msg.seq + 1
    }
    expect(raw.length).toBeGreaterThanOrEqual(LIMIT + 3)
    const bytes = Buffer.concat(raw.map((data) => Buffer.from(data)))
    expect(bytes.includes(Buffer.from(SECRET))).toBe(false)
    expect(bytes.includes(Buffer.from(ACCESS_KEY))).toBe(false)
    expect(bytes.includes(Buffer.from(Buffer.from(SECRET).toString("base64")))).toBe(false)
  })
})
