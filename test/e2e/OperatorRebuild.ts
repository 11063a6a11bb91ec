// The jobs projection rebuilt as an operator runs it: the aggregator's CLI in a plain shell with NATS and the link
// secret (secrets.env), but neither PORT nor PUBLIC_BASE_URL; its stdout.
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { REPO_ROOT, type ServiceStack } from "../support/ServiceStack.ts"

export const rebuildJobsAsOperator = async (stack: ServiceStack): Promise<string> => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["services/aggregator/src/cli/main.ts", "projections", "rebuild", "--projection", "jobs"],
    {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env["PATH"] ?? "",
        HOME: process.env["HOME"] ?? "",
        NATS_URL: stack.nats.url,
        DOWNLOAD_URL_SECRET: stack.env["DOWNLOAD_URL_SECRET"] ?? ""
      },
      timeout: 60_000
    }
  )
  return stdout
}
