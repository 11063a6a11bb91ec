// Containers for the adapters of the production topology (MongoDB, MinIO), started through testcontainers when Docker answers.
import { Effect, Layer, Redacted } from "effect"
import { MongoDatabase } from "@mds/shared/readmodel/mongo/MongoDatabase"

export const MONGO_IMAGE = "mongo:8.0"
export const MINIO_IMAGE = "minio/minio:latest"
export const MINIO_USER = "mds-test"
export const MINIO_PASSWORD = "mds-test-secret"

interface Started {
  readonly host: string
  readonly port: number
  readonly stop: () => Promise<unknown>
}

const running = new Map<string, Promise<Started>>()

/**
 * One container per image and test file, started on first use (every suite of the file uses its own collections or
 * buckets). testcontainers is imported only here, so a machine without Docker never loads it.
 */
const shared = (image: string, port: number, env: Record<string, string> = {}, command: Array<string> = []) => {
  const known = running.get(image)
  if (known !== undefined) return known
  const started = (async (): Promise<Started> => {
    const { GenericContainer } = await import("testcontainers")
    let container = new GenericContainer(image).withExposedPorts(port).withEnvironment(env)
    if (command.length > 0) container = container.withCommand(command)
    const up = await container.start()
    return { host: up.getHost(), port: up.getMappedPort(port), stop: () => up.stop() }
  })()
  running.set(image, started)
  return started
}

/** Stops every container this file started; call from afterAll. */
export const stopContainers = async () => {
  const all = [...running.values()]
  running.clear()
  await Promise.all(
    all.map((started) =>
      started.then(
        (s) => s.stop(),
        () => undefined
      )
    )
  )
}

/** A MongoDatabase on the file's mongo container, database "mds_test". */
export const TestMongo = Layer.unwrap(
  Effect.promise(() => shared(MONGO_IMAGE, 27017)).pipe(
    Effect.map(({ host, port }) => MongoDatabase.layerFromUrl(Redacted.make(`mongodb://${host}:${port}/mds_test`)))
  )
)

/** The file's MinIO container: endpoint URL and root credentials. */
export const testMinio = () =>
  shared(MINIO_IMAGE, 9000, { MINIO_ROOT_USER: MINIO_USER, MINIO_ROOT_PASSWORD: MINIO_PASSWORD }, ["server", "/data"]).then(
    ({ host, port }) => ({ endpoint: `http://${host}:${port}`, accessKey: MINIO_USER, secretKey: MINIO_PASSWORD })
  )
