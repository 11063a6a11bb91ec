// `mds` (the client CLI) run in process against a service at `url` with an API key, its output captured.
import { runCli } from "../../packages/client/src/cli/runCli.ts"

export interface MdsRun {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** One invocation of `mds` with `argv`, as a user with MDS_URL=`url` and MDS_API_KEY=`key` would run it. */
export const runMds = async (url: string, key: string, argv: ReadonlyArray<string>): Promise<MdsRun> => {
  let stdout = ""
  let stderr = ""
  const code = await runCli(argv, {
    stdout: { write: (text) => void (stdout += text) },
    stderr: { write: (text) => void (stderr += text) },
    env: { MDS_URL: url, MDS_API_KEY: key },
    cwd: process.cwd()
  })
  return { code, stdout, stderr }
}
