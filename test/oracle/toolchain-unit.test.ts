import { realpathSync } from 'node:fs'
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { oracleToolchain, resolveOracleToolchain, trustedPathDirs } from '../../src/oracle/toolchain.ts'

// The toolchain resolved from PATHs laid out by hand: stand-in `python3` and `bash` scripts that answer the probe,
// `--version` and the environment they were run with, so every way an interpreter can answer is a real process
// (the real interpreters, a virtualenv and a planted node are in toolchain.test.ts).

/** A new temporary folder (its real path: the resolved paths are compared with it). */
const scratch = async (label: string) => realpathSync(await mkdtemp(path.join(os.tmpdir(), `task-outcome-toolchain-${label}-`)))

/** An executable `/bin/sh` script at `file` (its folders made) with `body`. */
async function script(file: string, body: string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true })
  await writeFile(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 })
  return file
}

/** Single quotes for a script line. */
const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`

/**
 * A stand-in `python3` in `dir`: `--version` prints `version` (and exits `versionExit`), the harness's probe
 * (`-c` and its script) prints `probe` (JSON unless a string) and exits `probeExit`.
 */
function fakePython(dir: string, probe: unknown, options: { version?: string; versionExit?: number; probeExit?: number } = {}): Promise<string> {
  const answer = typeof probe === 'string' ? probe : JSON.stringify(probe)
  return script(
    path.join(dir, 'python3'),
    [
      `if [ "$1" = --version ]; then printf '%s\\n' ${quoted(options.version ?? 'Python 3.99.1')}; exit ${options.versionExit ?? 0}; fi`,
      // Only the harness's probe gets the answer: `-c` and a script reading the prefixes.
      `case "$1 $2" in '-c '*sys.base_exec_prefix*) ;; *) exit 2;; esac`,
      `printf '%s\\n' ${quoted(answer)}`,
      `exit ${options.probeExit ?? 0}`,
    ].join('\n'),
  )
}

/** The probe's answer of a plain installation at `prefix` whose interpreter is `executable`. */
const plain = (executable: string, prefix: string) => [executable, prefix, prefix, prefix, prefix]

describe('trustedPathDirs: the host PATH without the entries nobody vouches for', () => {
  test.each<[string, (dirs: Dirs) => string | undefined, string[]]>([
    ['no PATH at all', () => undefined, []],
    ['an empty PATH', () => '', []],
    ['empty and relative entries', (d: Dirs) => `:bin:./bin:${d.kept}`, ['kept']],
    ['a folder that does not exist', (d: Dirs) => `${d.root}/missing:${d.kept}`, ['kept']],
    ['the excluded folder itself and folders inside it', (d: Dirs) => `${d.project}:${d.project}/bin:${d.kept}`, ['kept']],
    ['a folder beside the excluded one whose name starts the same', (d: Dirs) => `${d.project}-other`, ['project-other']],
    ['a link into the excluded folder', (d: Dirs) => `${d.root}/to-project:${d.kept}`, ['kept']],
    ['any node_modules folder, not only .bin', (d: Dirs) => `${d.root}/node_modules/tool:${d.root}/node_modules/.bin:${d.kept}`, ['kept']],
    ['a link into a node_modules folder', (d: Dirs) => `${d.root}/to-modules:${d.kept}`, ['kept']],
    ['an entry given twice', (d: Dirs) => `${d.kept}:${d.other}:${d.kept}`, ['kept', 'other']],
  ])('drops %s', async (_what, hostPath, expected) => {
    const dirs = await layout()
    expect(trustedPathDirs(hostPath(dirs), [dirs.project]).map((dir) => path.relative(dirs.root, dir))).toEqual(expected)
  })

  test('keeps every folder when nothing is excluded, in the order of the PATH', async () => {
    const dirs = await layout()
    expect(trustedPathDirs(`${dirs.other}:${dirs.project}:${dirs.kept}`, [])).toEqual([dirs.other, dirs.project, dirs.kept])
  })
})

interface Dirs {
  readonly root: string
  readonly project: string
  readonly kept: string
  readonly other: string
}

/** A scratch folder with a project, two ordinary folders, node_modules folders and links into both. */
async function layout(): Promise<Dirs> {
  const root = await scratch('path')
  const dirs = { root, project: path.join(root, 'project'), kept: path.join(root, 'kept'), other: path.join(root, 'other') }
  for (const dir of [dirs.project, `${dirs.project}/bin`, `${dirs.project}-other`, dirs.kept, dirs.other, `${root}/node_modules/tool`, `${root}/node_modules/.bin`])
    await mkdir(dir, { recursive: true })
  await symlink(`${dirs.project}/bin`, `${root}/to-project`)
  await symlink(`${root}/node_modules/tool`, `${root}/to-modules`)
  return dirs
}

describe('resolveOracleToolchain: the python3 the oracle runs, and what it mounts', () => {
  test('a plain installation: the interpreter it names (its link resolved), its version, its folders and prefix mounted', async () => {
    const root = await scratch('plain')
    const prefix = path.join(root, 'prefix')
    const real = await fakePython(path.join(prefix, 'bin'), 'unused')
    await mkdir(path.join(root, 'links'))
    await symlink(real, path.join(root, 'links', 'python3'))
    await fakePython(path.join(root, 'path'), plain(path.join(root, 'links', 'python3'), prefix))
    const toolchain = await resolveOracleToolchain(`${root}/path:/usr/bin:/bin`, [])
    expect(toolchain.binaries.python3).toBe(real)
    expect(toolchain.label).toContain(`; python3 3.99.1 ${real}; bash `)
    expect(toolchain.mounts).toEqual(expect.arrayContaining([path.join(prefix, 'bin'), prefix]))
    expect(toolchain.mounts).not.toContain(path.join(root, 'links'))
  })

  test('a virtualenv: the interpreter kept as the path it is run by, named as a virtualenv of its base, both prefixes mounted', async () => {
    const root = await scratch('venv')
    const base = path.join(root, 'base')
    const real = await fakePython(path.join(base, 'bin'), 'unused')
    const venv = path.join(root, 'venv')
    await mkdir(path.join(venv, 'bin'), { recursive: true })
    await symlink(real, path.join(venv, 'bin', 'python3'))
    await fakePython(path.join(root, 'path'), [path.join(venv, 'bin', 'python3'), venv, venv, base, base])
    const toolchain = await resolveOracleToolchain(`${root}/path:/usr/bin:/bin`, [])
    expect(toolchain.binaries.python3).toBe(path.join(venv, 'bin', 'python3'))
    expect(toolchain.label).toContain(`; python3 3.99.1 ${path.join(venv, 'bin', 'python3')} (virtualenv of ${base}); bash `)
    expect(toolchain.mounts).toEqual(expect.arrayContaining([path.join(venv, 'bin'), path.join(base, 'bin'), venv, base]))
  })

  test('each of the four prefixes is mounted, and a linked prefix by both its path and its real path', async () => {
    const root = await scratch('prefixes')
    const names = ['prefix', 'exec', 'base', 'base-exec', 'real-base']
    for (const name of names) await mkdir(path.join(root, name))
    await symlink(path.join(root, 'real-base'), path.join(root, 'linked-base'))
    const executable = await fakePython(path.join(root, 'path'), 'unused')
    await fakePython(path.join(root, 'path'), [executable, `${root}/prefix`, `${root}/exec`, `${root}/linked-base`, `${root}/base-exec`])
    const toolchain = await resolveOracleToolchain(`${root}/path:/usr/bin:/bin`, [])
    expect(toolchain.mounts).toEqual(expect.arrayContaining(['prefix', 'exec', 'linked-base', 'real-base', 'base-exec'].map((name) => path.join(root, name))))
  })

  test('a prefix that does not exist, or that the sandbox mounts anyway (a system folder, or a link to one), is not mounted', async () => {
    const root = await scratch('system')
    await symlink('/usr', path.join(root, 'usr-link'))
    const executable = await fakePython(path.join(root, 'path'), 'unused')
    await fakePython(path.join(root, 'path'), [executable, `${root}/missing`, '/usr', `${root}/usr-link`, '/usr/lib'])
    const toolchain = await resolveOracleToolchain(`${root}/path:/usr/bin:/bin`, [])
    expect(toolchain.binaries.python3).toBe(executable)
    for (const dir of [`${root}/missing`, '/usr', `${root}/usr-link`, '/usr/lib']) expect(toolchain.mounts).not.toContain(dir)
  })

  test.each([
    ['Python 3.99.1', '3.99.1'],
    ['Python    3.99.1', '3.99.1'],
    ['  Python 3.99.1  \nsecond line', '3.99.1'],
    ['PyPy Python 7.3', 'PyPy Python 7.3'],
  ])('its version, from the first line of --version %j, is %j', async (version, expected) => {
    const root = await scratch('version')
    const executable = await fakePython(path.join(root, 'path'), 'unused', { version })
    await fakePython(path.join(root, 'path'), plain(executable, root), { version })
    const toolchain = await resolveOracleToolchain(`${root}/path:/usr/bin:/bin`, [])
    expect(toolchain.label).toContain(`; python3 ${expected} ${executable}; `)
  })

  test('its version is "unknown" when --version fails; one printed on stderr is read as well', async () => {
    const root = await scratch('version-fails')
    const failing = await fakePython(path.join(root, 'failing'), 'unused', { versionExit: 1 })
    await fakePython(path.join(root, 'failing'), plain(failing, root), { versionExit: 1 })
    expect((await resolveOracleToolchain(`${root}/failing:/usr/bin:/bin`, [])).label).toContain(`; python3 unknown ${failing}; `)
    const stderr = await script(
      path.join(root, 'stderr', 'python3'),
      `if [ "$1" = --version ]; then echo 'Python 2.7.18' >&2; exit 0; fi\nprintf '%s\\n' ${quoted(JSON.stringify(plain(path.join(root, 'stderr', 'python3'), root)))}`,
    )
    expect((await resolveOracleToolchain(`${root}/stderr:/usr/bin:/bin`, [])).label).toContain(`; python3 2.7.18 ${stderr}; `)
  })

  test('the interpreter runs in the temporary folder with only the trusted PATH and a UTF-8 locale', async () => {
    const root = await scratch('env')
    const version = await script(
      path.join(root, 'path', 'python3'),
      `if [ "$1" = --version ]; then echo "Python $LANG|$PWD|$PATH|$HOME"; exit 0; fi\nprintf '%s\\n' ${quoted(JSON.stringify(plain(path.join(root, 'path', 'python3'), root)))}`,
    )
    const toolchain = await resolveOracleToolchain(`relative:${root}/path:/usr/bin`, [])
    expect(toolchain.label).toContain(`; python3 C.UTF-8|${realpathSync(os.tmpdir())}|${root}/path:/usr/bin| ${version}; `)
  })

  const executable = '/bin/sh'
  test.each([
    ['no JSON', 'Python 3.99.1'],
    ['no output', ''],
    ['JSON that is no list', { executable }],
    ['four paths', [executable, '/a', '/a', '/a']],
    ['six paths', [executable, '/a', '/a', '/a', '/a', '/a']],
    ['a relative path', [executable, 'prefix', '/a', '/a', '/a']],
    ['a number', [executable, 1, '/a', '/a', '/a']],
    ['an interpreter that does not exist', ['/nonexistent/python3', '/a', '/a', '/a', '/a']],
    ['an interpreter that is a folder', ['/usr', '/a', '/a', '/a', '/a']],
    ['an interpreter that is not executable', ['{root}/data.txt', '/a', '/a', '/a', '/a']],
  ])('no python3 when the probe answers %s', async (_what, probe) => {
    const root = await scratch('probe')
    await writeFile(path.join(root, 'data.txt'), 'not a program\n', { mode: 0o644 })
    await fakePython(root, JSON.parse(JSON.stringify(probe).replaceAll('{root}', root)))
    const toolchain = await resolveOracleToolchain(`${root}:/usr/bin:/bin`, [])
    expect(toolchain.binaries.python3).toBeUndefined()
    expect(toolchain.label).not.toContain('python3')
    expect(toolchain.label.split('; ')).toHaveLength(2)
  })

  test('no python3 when the probe fails, or the script cannot even start', async () => {
    const root = await scratch('probe-fails')
    await fakePython(path.join(root, 'failing'), plain('/bin/sh', root), { probeExit: 3 })
    expect((await resolveOracleToolchain(`${root}/failing:/usr/bin:/bin`, [])).binaries.python3).toBeUndefined()
    await mkdir(path.join(root, 'broken'))
    await writeFile(path.join(root, 'broken', 'python3'), '#!/nonexistent/interpreter\n', { mode: 0o755 })
    expect((await resolveOracleToolchain(`${root}/broken`, [])).binaries.python3).toBeUndefined()
  })

  test('python3 is the first executable file of that name on the PATH: a folder or a file without execute bits is passed over', async () => {
    const root = await scratch('find')
    await mkdir(path.join(root, 'a', 'python3'), { recursive: true })
    await mkdir(path.join(root, 'b'))
    await writeFile(path.join(root, 'b', 'python3'), 'not a program\n', { mode: 0o644 })
    const executable = await fakePython(path.join(root, 'c'), 'unused')
    await fakePython(path.join(root, 'c'), plain(executable, root))
    const toolchain = await resolveOracleToolchain(`${root}/a:${root}/b:${root}/c:/usr/bin:/bin`, [])
    expect(toolchain.binaries.python3).toBe(executable)
  })
})

describe('resolveOracleToolchain: bash, node and the PATH', () => {
  test("bash is the PATH's first (its link resolved), its version from --version, its folder mounted and first on the PATH", async () => {
    const root = await scratch('bash')
    const real = await script(path.join(root, 'real', 'bash'), `echo '  GNU bash, version 9.9.9(1)-release (x86_64)  '`)
    await mkdir(path.join(root, 'path'))
    await symlink(real, path.join(root, 'path', 'bash'))
    const toolchain = await resolveOracleToolchain(`${root}/path`, [])
    const node = realpathSync(process.execPath)
    expect(toolchain.binaries).toEqual({ node, bash: real })
    expect(toolchain.label).toBe(`node ${process.version} ${node}; bash 9.9.9(1)-release ${real}`)
    expect(toolchain.mounts).toEqual([path.dirname(node), path.join(root, 'real')])
    expect(toolchain.path).toBe([path.dirname(node), path.join(root, 'real'), path.join(root, 'path')].join(':'))
  })

  test('a bash whose --version names no version, or fails, is "unknown"', async () => {
    const root = await scratch('bash-unknown')
    const silent = await script(path.join(root, 'silent', 'bash'), `echo 'a shell'`)
    expect((await resolveOracleToolchain(`${root}/silent`, [])).label).toBe(`node ${process.version} ${realpathSync(process.execPath)}; bash unknown ${silent}`)
    const failing = await script(path.join(root, 'failing', 'bash'), `echo 'GNU bash, version 9.9.9'; exit 1`)
    expect((await resolveOracleToolchain(`${root}/failing`, [])).label).toMatch(new RegExp(`; bash unknown ${failing}$`))
  })

  test('a bash that cannot even start is "unknown" too', async () => {
    const root = await scratch('bash-broken')
    await mkdir(path.join(root, 'path'))
    await writeFile(path.join(root, 'path', 'bash'), '#!/nonexistent/interpreter\n', { mode: 0o755 })
    expect((await resolveOracleToolchain(`${root}/path`, [])).label).toMatch(/; bash unknown \S+\/path\/bash$/)
  })

  test("without a bash on the PATH it is /bin/bash (its real path); the PATH's other folders follow the tools' own", async () => {
    const root = await scratch('no-bash')
    const toolchain = await resolveOracleToolchain(root, [])
    const bash = realpathSync('/bin/bash')
    expect(toolchain.binaries.bash).toBe(bash)
    expect(toolchain.path).toBe([...new Set([path.dirname(realpathSync(process.execPath)), path.dirname(bash)]), root].join(':'))
    expect(toolchain.label).toMatch(new RegExp(`; bash \\d\\S* ${bash}$`))
  })

  test('the folders of a python3 and a bash side by side are mounted and put on the PATH once', async () => {
    const root = await scratch('together')
    const executable = await fakePython(root, 'unused')
    await fakePython(root, plain(executable, '/usr'))
    await script(path.join(root, 'bash'), `echo 'GNU bash, version 9.9.9'`)
    const toolchain = await resolveOracleToolchain(`${root}:/bin`, [])
    const node = path.dirname(realpathSync(process.execPath))
    expect(toolchain.mounts).toEqual([node, root])
    expect(toolchain.path).toBe(`${node}:${root}:/bin`)
  })
})

describe('oracleToolchain: resolved once per PATH and exclusions', () => {
  test('the same PATH and exclusions give the same resolution; another PATH or other exclusions another', () => {
    const hostPath = `/nonexistent-${process.pid}`
    const first = oracleToolchain(hostPath, ['/a', '/b'])
    expect(oracleToolchain(hostPath, ['/a', '/b'])).toBe(first)
    expect(oracleToolchain(`${hostPath}-2`, ['/a', '/b'])).not.toBe(first)
    expect(oracleToolchain(hostPath, ['/a'])).not.toBe(first)
    expect(oracleToolchain(hostPath, ['/a/b'])).not.toBe(oracleToolchain(hostPath, ['/a', '/b']))
    expect(oracleToolchain(`${hostPath}/a`, [])).not.toBe(oracleToolchain(hostPath, ['/a']))
    expect(oracleToolchain(undefined, [])).toBe(oracleToolchain(undefined, []))
    expect(oracleToolchain('', [])).toBe(oracleToolchain(undefined, []))
  })
})
