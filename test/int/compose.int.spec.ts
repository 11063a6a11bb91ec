// Checks docker-compose.yml and the Dockerfiles it builds: images, env per service, dependencies, healthchecks, replicas.
import { existsSync, readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { SERVICE_NODE_FLAGS } from "../support/ServiceStack.ts"

interface ComposeService {
  readonly image?: string
  readonly build?: { readonly context: string; readonly dockerfile: string }
  readonly environment?: Record<string, string>
  readonly depends_on?: Record<string, { readonly condition: string }>
  readonly healthcheck?: { readonly test: ReadonlyArray<string> }
  readonly deploy?: { readonly replicas?: number }
  readonly ports?: ReadonlyArray<string>
  readonly volumes?: ReadonlyArray<string>
  readonly command?: ReadonlyArray<string>
}
interface ComposeFile {
  readonly services: Record<string, ComposeService>
  readonly volumes: Record<string, unknown>
}

// Compose expands YAML merge keys (<<) the way YAML 1.1 does; `merge: true` makes the parser do the same.
const compose = parse(readFileSync("docker-compose.yml", "utf8"), { merge: true }) as ComposeFile
const service = (name: string): ComposeService => {
  const found = compose.services[name]
  if (found === undefined) throw new Error(`docker-compose.yml has no service ${name}`)
  return found
}
const env = (name: string) => service(name).environment ?? {}

const appServices = ["gateway", "aggregator", "extractor"] as const

describe("docker-compose.yml", () => {
  it("declares the whole production topology", () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ["aggregator", "extractor", "gateway", "minio", "minio-init", "mongodb", "nats", "proxy"].sort()
    )
  })

  it("runs a current NATS 2.x with JetStream on a volume", () => {
    const nats = service("nats")
    expect(nats.image).toMatch(/^nats:2\.(1\d|[2-9]\d)/)
    expect(nats.command).toContain("-js")
    const storeDir = nats.command?.[nats.command.indexOf("-sd") + 1]
    expect(nats.volumes?.some((v) => v.endsWith(`:${storeDir}`))).toBe(true)
  })

  it("gives every infrastructure and front service a healthcheck", () => {
    for (const name of ["nats", "mongodb", "minio", "gateway", "proxy"]) {
      expect(service(name).healthcheck?.test.length, name).toBeGreaterThan(1)
    }
  })

  it("builds each application service from its own Dockerfile", () => {
    for (const name of appServices) {
      const build = service(name).build
      expect(build?.context, name).toBe(".")
      expect(build?.dockerfile, name).toBe(`deploy/docker/${name}.Dockerfile`)
      expect(existsSync(build?.dockerfile ?? ""), name).toBe(true)
      expect(service(name).environment?.["SERVICE_NAME"], name).toBe(name)
    }
  })

  it("starts the application only after NATS and MongoDB are healthy and the bucket exists", () => {
    for (const name of appServices) {
      expect(service(name).depends_on, name).toEqual({
        nats: { condition: "service_healthy" },
        mongodb: { condition: "service_healthy" },
        "minio-init": { condition: "service_completed_successfully" }
      })
    }
    expect(service("minio-init").depends_on).toEqual({ minio: { condition: "service_healthy" } })
    expect(service("proxy").depends_on).toEqual({
      gateway: { condition: "service_healthy" },
      minio: { condition: "service_healthy" }
    })
  })

  it("points every application service at the stack's NATS, MongoDB and MinIO", () => {
    for (const name of appServices) {
      expect(env(name), name).toMatchObject({
        NATS_URL: "nats://nats:4222",
        MONGO_URL: "mongodb://mongodb:27017/mds",
        S3_ENDPOINT: "http://minio:9000",
        S3_PUBLIC_URL: "${PUBLIC_BASE_URL:-http://localhost:8080}",
        S3_BUCKET: "mds-artifacts",
        S3_ACCESS_KEY_ID: "${MINIO_ROOT_USER:-mds}",
        DATA_DIR: "/data"
      })
      expect(env(name)["S3_SECRET_ACCESS_KEY"], name).toMatch(/^\$\{MINIO_ROOT_PASSWORD:\?/)
      // The name the services read (MongoDatabase.config), not a near miss.
      expect(env(name)["MONGODB_URL"], name).toBeUndefined()
      for (const ttl of ["API_MEDIA_RESOLVE_TTL_SECONDS", "API_JOB_TTL_SECONDS", "API_DOWNLOAD_URL_TTL_SECONDS"]) {
        expect(env(name)[ttl], `${name} ${ttl}`).toMatch(/^\$\{\w+:-\d+\}$/)
      }
    }
    expect(service("minio-init").command?.join(" ")).toContain("mc mb --ignore-existing mds/mds-artifacts")
  })

  it("requires the secrets instead of shipping defaults, and gives each only to the services that sign or hash", () => {
    expect(env("gateway")["API_KEY_PEPPER"]).toMatch(/^\$\{API_KEY_PEPPER:\?/)
    for (const name of ["gateway", "extractor"]) {
      expect(env(name)["DOWNLOAD_URL_SECRET"], name).toMatch(/^\$\{DOWNLOAD_URL_SECRET:\?/)
      expect(env(name)["PUBLIC_BASE_URL"], name).toBeDefined()
    }
    expect(env("aggregator")["API_KEY_PEPPER"]).toBeUndefined()
    for (const name of ["gateway", "aggregator"]) expect(env(name)["WEBHOOK_SECRET"], name).toMatch(/^\$\{WEBHOOK_SECRET:\?/)
    expect(env("extractor")["WEBHOOK_SECRET"]).toBeUndefined()
    expect(env("extractor")["API_KEY_PEPPER"]).toBeUndefined()
    expect(env("minio")["MINIO_ROOT_PASSWORD"]).toMatch(/^\$\{MINIO_ROOT_PASSWORD:\?/)
  })

  it("serves two gateway replicas behind one public port and runs two extractors", () => {
    expect(service("gateway").deploy?.replicas).toBe(2)
    expect(service("gateway").ports).toBeUndefined()
    expect(env("gateway")).toMatchObject({ HOST: "0.0.0.0", PORT: "8080" })
    expect(service("proxy").ports).toEqual(["${PORT:-8080}:8080"])
    const caddyfile = readFileSync("deploy/docker/Caddyfile", "utf8")
    expect(caddyfile).toMatch(/dynamic a gateway 8080/)
    // Presigned links are signed for the proxy's address, so the proxy must pass the bucket's paths to MinIO.
    expect(caddyfile).toMatch(/handle \/mds-artifacts\/\* \{\s*reverse_proxy minio:9000/)
    expect(service("extractor").deploy?.replicas).toBe(2)
    expect(env("extractor")).toMatchObject({
      YT_DLP_PATH: "/opt/yt-dlp/bin/yt-dlp",
      FFMPEG_PATH: "/usr/bin/ffmpeg",
      FFPROBE_PATH: "/usr/bin/ffprobe"
    })
    expect(env("extractor")["WORKER_CONCURRENCY"]).toBeDefined()
  })

  it("gives the services NATS_REPLICAS, 1 unless the environment says otherwise", () => {
    for (const name of appServices) expect(env(name)["NATS_REPLICAS"], name).toBe("${NATS_REPLICAS:-1}")
  })

  it("declares every named volume it mounts", () => {
    for (const [name, svc] of Object.entries(compose.services)) {
      for (const volume of svc.volumes ?? []) {
        const source = volume.split(":")[0] ?? ""
        if (source.startsWith(".") || source.startsWith("/")) expect(existsSync(source), `${name} ${source}`).toBe(true)
        else expect(Object.keys(compose.volumes), `${name} ${source}`).toContain(source)
      }
    }
  })
})

describe("Dockerfiles", () => {
  for (const name of appServices) {
    it(`${name}: multi-stage on node:24-slim, non-root, runs its own main.ts`, () => {
      const dockerfile = readFileSync(`deploy/docker/${name}.Dockerfile`, "utf8")
      const stages = dockerfile.match(/^FROM .+$/gm) ?? []
      expect(stages.length).toBeGreaterThanOrEqual(2)
      for (const stage of stages) expect(stage).toMatch(/^FROM node:24-slim\b/)
      expect(dockerfile).toMatch(/npm ci --omit=dev/)
      expect(dockerfile).toMatch(/^USER node$/m)
      expect(dockerfile).toContain(`CMD ["node", "services/${name}/src/main.ts"]`)
      // The flags the tests run services with are the image's too.
      for (const flag of SERVICE_NODE_FLAGS) expect(dockerfile, `${name}: ${flag}`).toContain(flag)
      // Every COPY of the final stage must name a path that exists in the repository.
      for (const [, source] of dockerfile.matchAll(/^COPY (?!--from)(\S+)/gm)) {
        expect(existsSync(source ?? ""), `${name} COPY ${source}`).toBe(true)
      }
      expect(existsSync(`deploy/docker/${name}.Dockerfile.dockerignore`)).toBe(true)
    })
  }

  it("npm start runs the services with the tests' Node flags", () => {
    const start = readFileSync("deploy/local/start.sh", "utf8")
    for (const flag of SERVICE_NODE_FLAGS) expect(start, flag).toContain(flag)
  })

  it("extractor image carries ffmpeg and the pinned yt-dlp", () => {
    const dockerfile = readFileSync("deploy/docker/extractor.Dockerfile", "utf8")
    const setup = readFileSync("deploy/local/setup.sh", "utf8")
    const pinned = /MDS_YT_DLP_VERSION="([^"]+)"/.exec(setup)?.[1]
    expect(pinned).toBeDefined()
    expect(dockerfile).toContain(`ARG YT_DLP_VERSION=${pinned}`)
    expect(dockerfile).toContain('"yt-dlp==${YT_DLP_VERSION}"')
    expect(dockerfile).toMatch(/apt-get install[^\n]*\bffmpeg\b/)
    expect(dockerfile).toContain("YT_DLP_PATH=/opt/yt-dlp/bin/yt-dlp")
  })

  it("lets the extractor create network namespaces for its media tools without ever holding a capability", () => {
    const extractor = service("extractor") as ComposeService & { cap_add?: ReadonlyArray<string>; security_opt?: ReadonlyArray<string> }
    expect(env("extractor")["EGRESS_CONFINEMENT"]).toBe("${EGRESS_CONFINEMENT:-namespace}")
    expect(extractor.cap_add).toEqual(["SYS_ADMIN"])
    expect(extractor.security_opt).toContain("no-new-privileges:true")
    expect(readFileSync("deploy/docker/extractor.Dockerfile", "utf8")).toMatch(/^USER node$/m)
  })
})

describe("docker-compose.cluster.yml (3-node NATS cluster layered over docker-compose.yml)", () => {
  const overlay = parse(readFileSync("docker-compose.cluster.yml", "utf8"), { merge: true }) as ComposeFile
  const nodes = ["nats", "nats-2", "nats-3"]
  const flag = (command: ReadonlyArray<string> | undefined, name: string) => command?.[command.indexOf(name) + 1]

  it("runs three JetStream nodes of one cluster, each routing to the other two, each on its own volume", () => {
    const names = new Set<string | undefined>()
    for (const node of nodes) {
      const svc = overlay.services[node]
      expect(svc?.image, node).toBe(service("nats").image)
      expect(svc?.command, node).toContain("-js")
      expect(flag(svc?.command, "--cluster_name"), node).toBe("mds")
      names.add(flag(svc?.command, "--name"))
      const routes = flag(svc?.command, "--routes")?.split(",") ?? []
      expect(routes.sort(), node).toEqual(
        nodes
          .filter((n) => n !== node)
          .map((n) => `nats://${n}:6222`)
          .sort()
      )
      expect(svc?.healthcheck?.test.join(" "), node).toContain("/healthz")
      const volume = svc?.volumes?.[0]?.split(":")[0] ?? ""
      expect([...Object.keys(compose.volumes), ...Object.keys(overlay.volumes)], node).toContain(volume)
    }
    expect(names.size).toBe(3)
    expect(new Set(nodes.map((n) => overlay.services[n]?.volumes?.[0])).size).toBe(3)
  })

  it("gives every application all three addresses and 3 replicas", () => {
    for (const name of appServices) {
      expect(overlay.services[name]?.environment, name).toEqual({
        NATS_URL: "nats://nats:4222,nats://nats-2:4222,nats://nats-3:4222",
        NATS_REPLICAS: "3"
      })
    }
  })
})
