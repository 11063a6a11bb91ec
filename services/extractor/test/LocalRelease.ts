// A yt-dlp release of another version made on this machine, installed where the release installer would have put it.
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdir, realpath, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { promisify } from "node:util"
import { YT_DLP } from "./ExtractorHarness.ts"

const run = promisify(execFile)

/**
 * Installs a release of `version` as the installer would have (a venv under the releases directory and its
 * `<version>.ready` pointer): the pinned yt-dlp copied with its version changed; its other packages are the pinned venv's.
 */
export const installLocalRelease = async (releasesDir: string, version: string) => {
  const name = `venv-test-${randomBytes(4).toString("hex")}`
  const venv = join(releasesDir, name)
  await run(await realpath(join(dirname(YT_DLP), "python3")), ["-m", "venv", "--without-pip", venv])
  const pinnedSite = (
    await run(join(dirname(YT_DLP), "python3"), ["-c", "import yt_dlp, os; print(os.path.dirname(os.path.dirname(yt_dlp.__file__)))"])
  ).stdout.trim()
  const site = (await run(join(venv, "bin", "python3"), ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])).stdout.trim()
  await mkdir(site, { recursive: true })
  // Timestamps kept, so the compiled modules stay valid and the copy imports as fast as the original.
  await run("cp", ["-a", join(pinnedSite, "yt_dlp"), join(site, "yt_dlp")])
  await writeFile(
    join(site, "yt_dlp", "version.py"),
    `__version__ = '${version}'\nRELEASE_GIT_HEAD = ''\nVARIANT = None\nUPDATE_HINT = None\nCHANNEL = 'stable'\nORIGIN = 'yt-dlp/yt-dlp'\n_pkg_version = '${version}'\n`
  )
  await writeFile(join(site, "pinned.pth"), `${pinnedSite}\n`)
  const python = join(venv, "bin", "python3")
  await writeFile(join(venv, "bin", "yt-dlp"), `#!${python}\nimport sys\nfrom yt_dlp import main\nsys.exit(main())\n`, { mode: 0o755 })
  await writeFile(join(releasesDir, `${version}.ready`), `${name}\n`)
}
