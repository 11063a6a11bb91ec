// Checks the Kubernetes manifests under deploy/k8s: they parse, form the compose file's topology, and wire images, env and dependencies.
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { parse, parseAllDocuments } from "yaml"

interface EnvVar {
  readonly name: string
  readonly value?: string
  readonly valueFrom?: { readonly secretKeyRef?: { readonly name: string; readonly key: string } }
}
interface Container {
  readonly name: string
  readonly image: string
  readonly command?: ReadonlyArray<string>
  readonly env?: ReadonlyArray<EnvVar>
  readonly envFrom?: ReadonlyArray<{ readonly configMapRef?: { readonly name: string } }>
  readonly readinessProbe?: unknown
}
interface PodSpec {
  readonly containers: ReadonlyArray<Container>
  readonly initContainers?: ReadonlyArray<Container>
  readonly securityContext?: { readonly runAsNonRoot?: boolean }
}
interface Manifest {
  readonly apiVersion: string
  readonly kind: string
  readonly metadata: { readonly name: string; readonly namespace?: string }
  readonly data?: Record<string, string>
  readonly stringData?: Record<string, string>
  readonly spec?: {
    readonly replicas?: number
    readonly selector?: Record<string, string> & { readonly matchLabels?: Record<string, string> }
    readonly ports?: ReadonlyArray<{ readonly port: number }>
    readonly template?: { readonly metadata?: { readonly labels?: Record<string, string> }; readonly spec: PodSpec }
    readonly rules?: ReadonlyArray<{
      readonly http: {
        readonly paths: ReadonlyArray<{
          readonly path: string
          readonly backend: { readonly service: { readonly name: string; readonly port: { readonly number: number } } }
        }>
      }
    }>
  }
}

const DIR = "deploy/k8s"
const files = readdirSync(DIR)
  .filter((f) => f.endsWith(".yaml"))
  .sort()
const documents = (file: string): Array<Manifest> =>
  parseAllDocuments(readFileSync(join(DIR, file), "utf8")).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join("; ")}`)
    return doc.toJS() as Manifest
  })
const kustomization = parse(readFileSync(join(DIR, "kustomization.yaml"), "utf8")) as { resources: Array<string>; namespace: string }
const applied = kustomization.resources.flatMap(documents)
const secret = documents("secret.example.yaml")[0]!
const find = (kind: string, name: string) => {
  const found = applied.find((m) => m.kind === kind && m.metadata.name === name)
  if (found === undefined) throw new Error(`no ${kind} ${name} in ${DIR}`)
  return found
}
const pod = (kind: string, name: string) => find(kind, name).spec?.template?.spec as PodSpec
const configMap = find("ConfigMap", "mds-config").data ?? {}

/** The container's environment as the pod sees it: the ConfigMap first, then env entries (secrets as "secret:key"). */
const envOf = (container: Container): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const from of container.envFrom ?? []) Object.assign(env, find("ConfigMap", from.configMapRef?.name ?? "").data)
  for (const v of container.env ?? []) env[v.name] = v.value ?? `secret:${v.valueFrom?.secretKeyRef?.key}`
  return env
}

const compose = parse(readFileSync("docker-compose.yml", "utf8"), { merge: true }) as {
  services: Record<string, { image?: string; environment?: Record<string, string> }>
}
const apps = ["gateway", "aggregator", "extractor"] as const

describe("Kubernetes manifests (deploy/k8s)", () => {
  it("every file parses, and kustomization applies every manifest but the secret template", () => {
    for (const file of files) expect(() => documents(file), file).not.toThrow()
    expect([...kustomization.resources].sort()).toEqual(files.filter((f) => f !== "kustomization.yaml" && f !== "secret.example.yaml"))
    for (const manifest of [...applied, secret]) {
      expect(manifest.apiVersion, manifest.metadata.name).toBeTruthy()
      if (manifest.kind !== "Namespace") expect(manifest.metadata.namespace, manifest.metadata.name).toBe(kustomization.namespace)
    }
  })

  it("has the compose file's topology and images: NATS, MongoDB, MinIO (+ init), 2 gateways, 1 aggregator, 2 extractors", () => {
    for (const infra of ["nats", "mongodb", "minio"]) {
      expect(pod("StatefulSet", infra).containers[0]?.image, infra).toBe(compose.services[infra]?.image)
    }
    expect(pod("Job", "minio-init").containers[0]?.image).toBe(compose.services["minio-init"]?.image)
    expect(find("Deployment", "gateway").spec?.replicas).toBe(2)
    expect(find("Deployment", "aggregator").spec?.replicas).toBe(1)
    expect(find("Deployment", "extractor").spec?.replicas).toBe(2)
    for (const app of apps) expect(pod("Deployment", app).containers[0]?.image, app).toBe(compose.services[app]?.image)
    expect(
      pod("StatefulSet", "nats").containers[0]?.command ?? (pod("StatefulSet", "nats").containers[0] as { args?: Array<string> }).args
    ).toContain("-js")
  })

  it("runs NATS as a 3-node JetStream cluster whose routes name every node, and the services replicate 3 times", () => {
    const nats = find("StatefulSet", "nats")
    expect(nats.spec?.replicas).toBe(3)
    const args = (pod("StatefulSet", "nats").containers[0] as { args?: Array<string> }).args ?? []
    const flag = (name: string) => args[args.indexOf(name) + 1]
    expect(flag("--cluster_name")).toBe("mds")
    const headless = (nats.spec as { serviceName?: string }).serviceName ?? ""
    expect(find("Service", headless).spec?.ports?.map((p) => p.port)).toContain(6222)
    expect(flag("--routes")?.split(",")).toEqual([0, 1, 2].map((i) => `nats://nats-${i}.${headless}:6222`))
    expect(configMap["NATS_REPLICAS"]).toBe("3")
  })

  it("every Service selects pods that exist, and the ingress reaches Services on their ports", () => {
    const podLabels = applied.flatMap((m) => (m.spec?.template?.metadata?.labels ? [m.spec.template.metadata.labels] : []))
    for (const service of applied.filter((m) => m.kind === "Service")) {
      const selector = service.spec?.selector ?? {}
      expect(
        podLabels.some((labels) => Object.entries(selector).every(([k, v]) => labels[k] === v)),
        service.metadata.name
      ).toBe(true)
    }
    const paths = find("Ingress", "mds").spec?.rules?.flatMap((rule) => rule.http.paths) ?? []
    expect(paths.map((p) => [p.path, p.backend.service.name])).toEqual([
      ["/mds-artifacts/", "minio"],
      ["/", "gateway"]
    ])
    for (const p of paths) {
      expect(
        find("Service", p.backend.service.name).spec?.ports?.map((port) => port.port),
        p.path
      ).toContain(p.backend.service.port.number)
    }
  })

  it("points every application at the stack's NATS, MongoDB and MinIO Services, with secrets from the Secret", () => {
    const serviceHasPort = (host: string, port: number) => find("Service", host).spec?.ports?.some((p) => p.port === port)
    for (const app of apps) {
      const spec = pod("Deployment", app)
      const env = envOf(spec.containers[0]!)
      expect(env, app).toMatchObject({
        SERVICE_NAME: app,
        S3_ACCESS_KEY_ID: "secret:MINIO_ROOT_USER",
        S3_SECRET_ACCESS_KEY: "secret:MINIO_ROOT_PASSWORD",
        S3_BUCKET: "mds-artifacts"
      })
      const nats = new URL(env["NATS_URL"] ?? "")
      const mongo = new URL(env["MONGO_URL"] ?? "")
      const s3 = new URL(env["S3_ENDPOINT"] ?? "")
      expect(serviceHasPort(nats.hostname, Number(nats.port)), `${app} NATS_URL`).toBe(true)
      expect(serviceHasPort(mongo.hostname, Number(mongo.port)), `${app} MONGO_URL`).toBe(true)
      expect(serviceHasPort(s3.hostname, Number(s3.port)), `${app} S3_ENDPOINT`).toBe(true)
      // Dependencies: the app waits for all three, as depends_on does in compose.
      const wait = spec.initContainers?.[0]?.command?.join(" ") ?? ""
      for (const dependency of ["nats 4222", "mongodb 27017", "minio 9000"])
        expect(wait, `${app} waits for ${dependency}`).toContain(`nc -z ${dependency}`)
      expect(spec.securityContext?.runAsNonRoot, app).toBe(true)
    }
    expect(envOf(pod("Deployment", "gateway").containers[0]!)).toMatchObject({
      API_KEY_PEPPER: "secret:API_KEY_PEPPER",
      DOWNLOAD_URL_SECRET: "secret:DOWNLOAD_URL_SECRET",
      HOST: "0.0.0.0"
    })
    const confined = pod("Deployment", "extractor").containers[0] as Container & {
      securityContext?: { allowPrivilegeEscalation?: boolean; capabilities?: { drop?: Array<string>; add?: Array<string> } }
    }
    expect(confined.securityContext).toMatchObject({ allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"], add: ["SYS_ADMIN"] } })
    expect(envOf(pod("Deployment", "extractor").containers[0]!)).toMatchObject({
      YT_DLP_PATH: "/opt/yt-dlp/bin/yt-dlp",
      FFMPEG_PATH: "/usr/bin/ffmpeg"
    })
    expect(envOf(pod("Deployment", "aggregator").containers[0]!)["API_KEY_PEPPER"]).toBeUndefined()
    expect(pod("Deployment", "gateway").containers[0]?.readinessProbe).toMatchObject({ httpGet: { path: "/v1/health", port: 8080 } })
    expect(configMap["S3_PUBLIC_URL"]).toBe(configMap["PUBLIC_BASE_URL"])
  })

  it("every secret referenced is in the secret template", () => {
    const keys = Object.keys(secret.stringData ?? {})
    for (const manifest of applied) {
      const spec = manifest.spec?.template?.spec
      for (const container of [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])]) {
        for (const v of container.env ?? []) {
          const ref = v.valueFrom?.secretKeyRef
          if (ref !== undefined) {
            expect(ref.name, `${manifest.metadata.name} ${v.name}`).toBe(secret.metadata.name)
            expect(keys, `${manifest.metadata.name} ${v.name}`).toContain(ref.key)
          }
        }
      }
    }
  })
})

describe("deployment env names", () => {
  const sources = ["shared/src", ...apps.map((app) => `services/${app}/src`)]
    .flatMap((dir) =>
      readdirSync(dir, { recursive: true, encoding: "utf8" })
        .filter((f) => f.endsWith(".ts"))
        .map((f) => readFileSync(join(dir, f), "utf8"))
    )
    .join("\n")

  it("every variable compose and Kubernetes give the services is one the code reads", () => {
    const given = new Set<string>()
    for (const app of apps) {
      for (const name of Object.keys(compose.services[app]?.environment ?? {})) given.add(name)
      for (const name of Object.keys(envOf(pod("Deployment", app).containers[0]!))) given.add(name)
    }
    const unread = [...given].filter((name) => !sources.includes(`"${name}"`))
    expect(unread).toEqual([])
  })
})
