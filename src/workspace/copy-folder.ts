import { runProcess, UNSANDBOXED_HOST } from '../sandbox/index.ts'

/**
 * Copies a folder's contents into `dest`, an existing empty folder, keeping
 * modes and symbolic links (`cp -a`, never following a link the agent may
 * have made); on Linux the copy shares blocks with the source where the file
 * system can (reflinks). `cp` is the harness's own tool, run on the host.
 */
export async function copyFolder(source: string, dest: string): Promise<void> {
  const flags = process.platform === 'linux' ? ['-a', '--reflink=auto'] : ['-a']
  const result = await runProcess(
    { file: 'cp', args: [...flags, `${source}/.`, `${dest}/`] },
    { cwd: dest, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, sandbox: UNSANDBOXED_HOST },
  )
  if (result.exitCode !== 0) throw new Error(`cp ${source} → ${dest} failed (exit ${result.exitCode ?? result.signal}): ${result.stderr.slice(-1000)}`)
}
