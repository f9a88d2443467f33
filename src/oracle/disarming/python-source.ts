import { FLAG } from './flags.ts'
import { PROC_PATH_SOURCE, TEST_PATH_SOURCE, TEST_PATTERN_SOURCE } from './paths.ts'

/**
 * The Python analysis, a script the harness owns (passed with `-c`, never a
 * file anyone else can write), run by the oracle's own interpreter with `-I
 * -S` (no environment, no site, no user folders) in the oracle's sandbox. It
 * reads `[{path, source (base64)}]` on stdin and writes one JSON line per
 * file as it finishes it: `{path, findings: [[flag, line | null], …]}`. It
 * only parses (`ast.parse` never runs the file), and follows values as the
 * JavaScript analysis does: imports and their aliases (`import _pytest.runner
 * as r`, `from unittest import TestCase`), `__import__`/`importlib` with names
 * it can read, `getattr`, `vars`, assignments, loops, function arguments and
 * results; then writes of any syntax (attributes, subscripts, `setattr`,
 * `delattr`, `__dict__`), exit handlers, code compiled from strings, reads of
 * test paths and `/proc`. A syntax error is `does not parse` at its line.
 */
export const PYTHON_ANALYSIS_SOURCE = String.raw`import ast, base64, json, re, sys

FLAG = json.loads(${JSON.stringify(JSON.stringify(FLAG))})
PROC = re.compile(${JSON.stringify(PROC_PATH_SOURCE)})
TEST_PATH = re.compile(${JSON.stringify(TEST_PATH_SOURCE)})
TEST_PATTERN = re.compile(${JSON.stringify(TEST_PATTERN_SOURCE)})
MAX_DEPTH = 48
MAX_ROUNDS = 8
MAX_EVAL_DEPTH = 3
ANY = '*'
RUNNER_ROOTS = {'pytest', '_pytest', 'pluggy', 'unittest', 'builtins'}
SYS_HOOKS = {'exit', 'excepthook', 'modules', 'meta_path', 'path_hooks', 'path_importer_cache', 'settrace', 'setprofile',
             'stdout', 'stderr', '__stdout__', '__stderr__', 'displayhook', 'unraisablehook', 'breakpointhook', ANY}
MUTATORS = {'insert', 'append', 'extend', 'update', 'setdefault', '__setitem__', 'pop', 'clear', 'remove'}
EXITS = {('os', ('_exit',)), ('os', ('abort',)), ('os', ('kill',)), ('os', ('killpg',)), ('sys', ('exit',)),
         ('builtins', ('exit',)), ('builtins', ('quit',))}
READERS = {'open', 'listdir', 'scandir', 'walk', 'fdopen', 'read_text', 'read_bytes', 'iterdir', 'glob', 'iglob', 'rglob',
           'readlines', 'copy', 'copyfile', 'copytree', 'load_source', 'spec_from_file_location', 'run_path'}
READER_MODULES = {'glob', 'pathlib', 'shutil', 'fileinput'}
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def walk(tree):
    out = []
    stack = [(tree, False, None)]
    while stack:
        node, in_function, owner = stack.pop()
        out.append((node, in_function, owner))
        is_function = isinstance(node, FUNCTIONS)
        decorators = getattr(node, 'decorator_list', []) if is_function else []
        kids = list(ast.iter_child_nodes(node))
        for kid in reversed(kids):
            deferred = is_function and not any(kid is d for d in decorators)
            stack.append((kid, in_function or deferred, node if is_function else owner))
    return out


def names_of(target):
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for elt in target.elts for name in names_of(elt)]
    if isinstance(target, ast.Starred):
        return names_of(target.value)
    return []


def write_targets(target):
    if isinstance(target, (ast.Attribute, ast.Subscript)):
        return [target]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [t for elt in target.elts for t in write_targets(elt)]
    if isinstance(target, ast.Starred):
        return write_targets(target.value)
    return []


class Analysis:
    def __init__(self, tree, depth, outer):
        self.findings = []
        self.depth = depth
        self.outer = outer
        self.bindings = {}
        self.declared = set()
        self.constants = {}
        self.functions = {}
        self.returns = {}
        self.test_path_line = None
        self.reads_files = False
        self.visited = walk(tree)
        self.declare()
        for _ in range(MAX_ROUNDS):
            self.grew = False
            for node, _in_function, owner in self.visited:
                self.propagate(node, owner)
            if not self.grew:
                break
        for node, in_function, _owner in self.visited:
            self.flag(node, in_function)
        if self.test_path_line is not None and self.reads_files:
            self.found('readsTestFiles', self.test_path_line)

    def found(self, flag, line):
        self.findings.append([FLAG[flag], line])

    def declare(self):
        assigned = {}
        for node, _in_function, _owner in self.visited:
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                self.declared.add(node.id)
                assigned[node.id] = assigned.get(node.id, 0) + 1
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.declared.add(node.name)
                if not isinstance(node, ast.ClassDef):
                    self.functions.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.arg):
                self.declared.add(node.arg)
            elif isinstance(node, ast.alias):
                self.declared.add(node.asname or node.name.split('.')[0])
            elif isinstance(node, ast.ExceptHandler) and node.name:
                self.declared.add(node.name)
        for node, _in_function, _owner in self.visited:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                if assigned.get(node.targets[0].id) == 1:
                    self.constants[node.targets[0].id] = node.value

    def is_declared(self, name):
        return name in self.declared or (self.outer is not None and self.outer.is_declared(name))

    def bound(self, name):
        own = self.bindings.get(name, set())
        return own | (self.outer.bound(name) if self.outer is not None else set())

    def bind(self, target, values):
        if not values:
            return
        for name in names_of(target):
            current = self.bindings.setdefault(name, set())
            if not values <= current:
                current |= values
                self.grew = True

    def propagate(self, node, owner):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split('.')
                if alias.asname:
                    self.bind(ast.Name(id=alias.asname), {(parts[0], tuple(parts[1:]))})
                else:
                    self.bind(ast.Name(id=parts[0]), {(parts[0], ())})
        elif isinstance(node, ast.ImportFrom):
            if node.level or not node.module:
                return
            parts = node.module.split('.')
            for alias in node.names:
                if alias.name != '*':
                    self.bind(ast.Name(id=alias.asname or alias.name), {(parts[0], tuple(parts[1:]) + (alias.name,))})
        elif isinstance(node, ast.Assign):
            values = self.resolve(node.value)
            for target in node.targets:
                self.bind(target, values)
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
            self.bind(node.target, self.resolve(node.value))
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            self.bind(node.target, self.resolve(node.iter))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            self.bind(node.optional_vars, self.resolve(node.context_expr))
        elif isinstance(node, ast.Return) and owner is not None and node.value is not None:
            values = self.resolve(node.value)
            current = self.returns.setdefault(owner, set())
            if not values <= current:
                current |= values
                self.grew = True
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            for function in self.functions.get(node.func.id, []):
                params = function.args.posonlyargs + function.args.args
                for param, arg in zip(params, node.args):
                    if not isinstance(arg, ast.Starred):
                        self.bind(ast.Name(id=param.arg), self.resolve(arg))

    def resolve(self, node, depth=0):
        if node is None or depth > MAX_DEPTH:
            return set()
        if isinstance(node, ast.Name):
            values = set(self.bound(node.id))
            if not self.is_declared(node.id):
                values.add(('builtins', ()) if node.id == '__builtins__' else ('builtins', (node.id,)))
            return values
        if isinstance(node, ast.Attribute):
            return {(root, path + (node.attr,)) for root, path in self.resolve(node.value, depth + 1)}
        if isinstance(node, ast.Subscript):
            key = self.fold(node.slice) or ANY
            return {(root, path + (key,)) for root, path in self.resolve(node.value, depth + 1)}
        if isinstance(node, ast.Call):
            return self.call_result(node, depth)
        if isinstance(node, ast.IfExp):
            return self.resolve(node.body, depth + 1) | self.resolve(node.orelse, depth + 1)
        if isinstance(node, ast.BoolOp):
            return set().union(*(self.resolve(value, depth + 1) for value in node.values))
        if isinstance(node, (ast.NamedExpr, ast.Starred, ast.Await)):
            return self.resolve(node.value, depth + 1)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return set().union(set(), *(self.resolve(elt, depth + 1) for elt in node.elts))
        return set()

    def call_result(self, node, depth):
        results = set()
        if isinstance(node.func, ast.Name):
            for function in self.functions.get(node.func.id, []):
                results |= self.returns.get(function, set())
        arg = node.args[0] if node.args else None
        for root, path in self.resolve(node.func, depth + 1):
            if (root, path) in (('builtins', ('__import__',)), ('importlib', ('__import__',))):
                name = self.fold(arg)
                if name:
                    results.add((name.split('.')[0], ()))
            elif (root, path) == ('importlib', ('import_module',)):
                name = self.fold(arg)
                if name:
                    parts = name.split('.')
                    results.add((parts[0], tuple(parts[1:])))
            elif (root, path) == ('builtins', ('getattr',)) and len(node.args) >= 2:
                key = self.fold(node.args[1]) or ANY
                results |= {(r, p + (key,)) for r, p in self.resolve(arg, depth + 1)}
            elif (root, path) == ('builtins', ('vars',)):
                results |= {(r, p + ('__dict__',)) for r, p in self.resolve(arg, depth + 1)}
        return results

    def fold(self, node, depth=0):
        if node is None or depth > MAX_DEPTH:
            return None
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                return node.value
            if isinstance(node.value, bytes):
                return node.value.decode('latin-1')
            return None
        if isinstance(node, ast.JoinedStr):
            parts = [self.fold(value, depth + 1) for value in node.values]
            return None if None in parts else ''.join(parts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left = self.fold(node.left, depth + 1)
            right = None if left is None else self.fold(node.right, depth + 1)
            return None if right is None else left + right
        if isinstance(node, ast.Name):
            if node.id in self.constants:
                return self.fold(self.constants[node.id], depth + 1)
            return self.outer.fold(node, depth + 1) if self.outer is not None else None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            base = self.fold(node.value, depth + 1)
            s = node.slice
            step = s.step
            if isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub) and isinstance(step.operand, ast.Constant):
                step = -step.operand.value
            elif step is not None:
                step = step.value if isinstance(step, ast.Constant) else 'unknown'
            if base is not None and s.lower is None and s.upper is None and step in (None, -1):
                return base[::-1] if step == -1 else base
            return None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == 'join' and len(node.args) == 1:
            separator = self.fold(node.func.value, depth + 1)
            items = node.args[0]
            if separator is None or not isinstance(items, (ast.List, ast.Tuple)):
                return None
            parts = [self.fold(elt, depth + 1) for elt in items.elts]
            return None if None in parts else separator.join(parts)
        return None

    def shape(self, node, depth=0):
        folded = self.fold(node, depth)
        if folded is not None:
            return folded
        if depth > MAX_DEPTH:
            return '\x00'
        if isinstance(node, ast.JoinedStr):
            return ''.join(value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else '\x00' for value in node.values)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.shape(node.left, depth + 1) + self.shape(node.right, depth + 1)
        return '\x00'

    def write(self, target):
        if isinstance(target, ast.Attribute):
            key = target.attr
        else:
            key = self.fold(target.slice) or ANY
        for value in self.resolve(target.value):
            self.write_flag(value, key, target.lineno)

    def write_flag(self, value, key, line):
        root, path = value
        full = path + (key,)
        if root in RUNNER_ROOTS or (root == 'sys' and full[0] in SYS_HOOKS):
            self.found('monkeypatchesRunner', line)

    def read_shape(self, shape, line):
        if PROC.search(shape):
            self.found('readsProc', line)
        if TEST_PATH.search(shape) or TEST_PATTERN.search(shape):
            if self.test_path_line is None:
                self.test_path_line = line

    def flag(self, node, in_function):
        line = getattr(node, 'lineno', None)
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for t in write_targets(target):
                    self.write(t)
                if not in_function and 'pytest_plugins' in names_of(target):
                    self.found('pytestHook', line)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
            for t in write_targets(node.target):
                self.write(t)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                for t in write_targets(target):
                    self.write(t)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if not in_function and not isinstance(node, ast.ClassDef) and node.name.startswith('pytest_'):
                self.found('pytestHook', line)
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                for root, path in self.resolve(target):
                    if (root in ('pytest', '_pytest') and path[-1:] == ('hookimpl',)) or (root == 'pluggy' and path[-1:] in (('HookimplMarker',), ('hookimpl',))):
                        self.found('pytestHook', decorator.lineno)
                    elif (root, path) == ('atexit', ('register',)):
                        self.found('monkeypatchesRunner', decorator.lineno)
        elif isinstance(node, ast.Raise) and not in_function and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if ('builtins', ('SystemExit',)) in self.resolve(exc):
                self.found('osExit', line)
        elif isinstance(node, ast.Call):
            self.call_flags(node, in_function)
        elif isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            self.read_shape(self.fold(node), line)
        elif isinstance(node, ast.JoinedStr) or (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)):
            self.read_shape(self.shape(node), line)

    def call_flags(self, node, in_function):
        line = node.lineno
        args = node.args
        arg = args[0] if args else None
        if isinstance(node.func, ast.Attribute) and node.func.attr in READERS:
            self.reads_files = True
        for root, path in self.resolve(node.func):
            value = (root, path)
            if value in (('builtins', ('setattr',)), ('builtins', ('delattr',)), ('builtins', ('object', '__setattr__')), ('builtins', ('type', '__setattr__'))):
                key = self.fold(args[1]) if len(args) >= 2 else None
                for target in self.resolve(arg):
                    self.write_flag(target, key or ANY, line)
            elif path[-1:] in (('__setattr__',), ('__delattr__',)) and len(path) >= 1:
                self.write_flag((root, path[:-1]), self.fold(arg) or ANY, line)
            elif len(path) >= 2 and path[-2] == '__dict__' and path[-1] in MUTATORS:
                self.write_flag((root, path[:-2]), ANY, line)
            elif root == 'sys' and len(path) >= 2 and path[0] in SYS_HOOKS and path[-1] in MUTATORS:
                self.found('monkeypatchesRunner', line)
            elif value in (('sys', ('settrace',)), ('sys', ('setprofile',)), ('sys', ('addaudithook',)), ('atexit', ('register',))):
                self.found('monkeypatchesRunner', line)
            elif value in (('builtins', ('exec',)), ('builtins', ('eval',)), ('builtins', ('compile',))):
                self.compiled(arg, line)
            elif value in (('builtins', ('__import__',)), ('importlib', ('import_module',)), ('importlib', ('__import__',)), ('runpy', ('run_module',))):
                self.load_flags(arg, line)
            elif value in (('importlib', ('util', 'spec_from_file_location')), ('runpy', ('run_path',))):
                self.reads_files = True
            elif value in EXITS and not in_function:
                self.found('osExit', line)
            elif value == ('os', ('getppid',)):
                self.found('readsProc', line)
            elif value in (('builtins', ('open',)), ('io', ('open',)), ('codecs', ('open',))) or root in READER_MODULES or (root == 'os' and path[-1:] in (('listdir',), ('scandir',), ('walk',), ('open',))):
                self.reads_files = True

    def compiled(self, node, line):
        source = self.fold(node)
        if source is None or self.depth >= MAX_EVAL_DEPTH:
            self.found('evaluatesString', line)
            return
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            self.found('evaluatesString', line)
            return
        for name, _line in Analysis(tree, self.depth + 1, self).findings:
            self.findings.append([FLAG['evaluatesString'] if name == FLAG['doesNotParse'] else name, line])

    def load_flags(self, node, line):
        name = self.fold(node)
        if name is None:
            self.found('computedModule', line)
        elif TEST_PATH.search(name.replace('.', '/') + '.py'):
            self.found('readsTestFiles', line)


def analyse(path, source):
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as error:
        return [[FLAG['doesNotParse'], error.lineno or 1]]
    except ValueError:
        return [[FLAG['doesNotParse'], 1]]
    return Analysis(tree, 0, None).findings


def main():
    for item in json.load(sys.stdin):
        try:
            findings = analyse(item['path'], base64.b64decode(item['source']))
        except (RecursionError, MemoryError):
            findings = [[FLAG['notAnalysed'], None]]
        sys.stdout.write(json.dumps({'path': item['path'], 'findings': findings}) + '\n')
        sys.stdout.flush()


main()
`
