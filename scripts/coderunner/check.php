<?php
// Runs questions of CodeRunner's built-in prototypes (db/builtin_PROTOTYPES.xml of the tree
// CODERUNNER_SRC names) through CodeRunner's own qtype_coderunner_jobrunner and jobesandbox classes
// against the Jobe server JOBE_HOST with the key JOBE_APIKEY (JOBE_APIKEY_SPENT: a client whose quota is
// used up), and checks what a student would see. The question object is a stand-in for question.php
// (Moodle's question engine is not loaded): the prototype's fields, and the question's getters that the
// jobrunner calls. Prints one line per case and exits 1 when any case fails.

require __DIR__ . '/moodle-stand-ins.php';
require_once("$CFG->dirroot/question/type/coderunner/classes/jobrunner.php");

class html_table {
    public $attributes = [];
    public $head = [];
    public $data = [];
    public $rowclasses = [];
}

/** Stand-in for question.php's qtype_coderunner_question: a question of a built-in prototype. */
#[AllowDynamicProperties]
class qtype_coderunner_question {
    public $prototype;
    public $prototypetype = 0;
    public $contextid = 1;
    public $showsource = false;
    public $hoisttemplateparams = false;
    public $parameters = [];
    public $files = [];

    public function __construct(SimpleXMLElement $proto, array $over) {
        foreach (['coderunnertype', 'template', 'language', 'testsplitterre', 'grader', 'sandboxparams', 'cputimelimitsecs', 'memlimitmb', 'sandbox'] as $f) {
            $v = (string) $proto->$f;
            $this->$f = $v === '' ? null : $v;
        }
        $this->iscombinatortemplate = (string) $proto->iscombinatortemplate === '1';
        $this->allowmultiplestdins = (string) $proto->allowmultiplestdins === '1';
        $this->extractcodefromjson = (string) $proto->extractcodefromjson === '1';
        $this->prototype = (object) ['coderunnertype' => $this->coderunnertype];
        foreach ($over as $k => $v) {
            $this->$k = $v;
        }
    }
    public function get_language() {
        return $this->language;
    }
    public function get_show_source() {
        return $this->showsource;
    }
    public function get_test_splitter_re() {
        return $this->testsplitterre;
    }
    public function get_is_combinator() {
        return $this->iscombinatortemplate;
    }
    public function allow_multiple_stdins() {
        return $this->allowmultiplestdins;
    }
    public function get_sandbox() {
        return qtype_coderunner_sandbox::get_instance('jobesandbox');
    }
    public function get_grader() {
        $graders = qtype_coderunner_grader::available_graders();
        $class = $graders[$this->grader ?? 'EqualityGrader'];
        return new $class();
    }
    public function get_files() {
        return $this->files;
    }
    public function get_sandbox_params() {
        $params = $this->sandboxparams ? json_decode($this->sandboxparams, true) : [];
        if ($this->cputimelimitsecs !== null) {
            $params['cputime'] = intval($this->cputimelimitsecs);
        }
        if ($this->memlimitmb !== null) {
            $params['memorylimit'] = intval($this->memlimitmb);
        }
        return $params;
    }
    public function twig_expand($text, $params = []) {
        if (trim($text ?? '') === '') {
            return $text;
        }
        $params['QUESTION'] = $this;
        $params['STUDENT'] = new stdClass();
        return qtype_coderunner_twig::render($text, $params);
    }
}

$prototypes = simplexml_load_file("$crsrc/db/builtin_PROTOTYPES.xml");
function prototype($type) {
    global $prototypes;
    foreach ($prototypes->question as $q) {
        if ((string) $q->coderunnertype === $type) {
            return $q;
        }
    }
    throw new Exception("no built-in prototype $type");
}

function testcase($code, $expected, $stdin = '') {
    return (object) ['testtype' => 0, 'testcode' => $code, 'stdin' => $stdin, 'expected' => $expected, 'extra' => '', 'display' => 'SHOW', 'useasexample' => 0, 'hiderestiffail' => 0, 'mark' => 1.0];
}

/** Runs one question as a Check would; returns the testing outcome. */
function check($type, $answer, $tests, $over = [], $key = null) {
    global $STANDIN_CONFIG;
    $saved = $STANDIN_CONFIG['jobe_apikey'];
    if ($key !== null) {
        $STANDIN_CONFIG['jobe_apikey'] = $key;
    }
    try {
        $q = new qtype_coderunner_question(prototype($type), $over);
        $runner = new qtype_coderunner_jobrunner();
        return $runner->run_tests($q, $answer, [], $tests, false, '');
    } finally {
        $STANDIN_CONFIG['jobe_apikey'] = $saved;
    }
}

function gots($outcome) {
    return array_map(fn($r) => $r->got, $outcome->testresults);
}

$ok = 0;
$failed = 0;
function expect_case($name, callable $run) {
    global $ok, $failed;
    $started = microtime(true);
    try {
        [$pass, $detail] = $run();
    } catch (Throwable $e) {
        [$pass, $detail] = [false, get_class($e) . ': ' . $e->getMessage()];
    }
    $ms = (int) ((microtime(true) - $started) * 1000);
    $pass ? $ok++ : $failed++;
    printf("%s  %-62s %6d ms  %s\n", $pass ? 'PASS' : 'FAIL', $name, $ms, $pass ? '' : substr(json_encode($detail), 0, 600));
}

$VALID = qtype_coderunner_testing_outcome::STATUS_VALID;
$SYNTAX = qtype_coderunner_testing_outcome::STATUS_SYNTAX_ERROR;
$SANDBOX = qtype_coderunner_testing_outcome::STATUS_SANDBOX_ERROR;
$allright = fn($o) => [$o->status === $VALID && $o->all_correct(), ['status' => $o->status, 'error' => $o->errormessage, 'got' => gots($o)]];

// python3: a combinator question, then one with stdin (run test by test), support files, errors, limits
expect_case('python3: function question, combinator, all right', fn() => $allright(check('python3', "def sqr(n):\n    return n * n\n", [testcase('print(sqr(3))', '9'), testcase('print(sqr(-11))', '121')])));
expect_case('python3: stdin per test', fn() => $allright(check('python3', "def echo():\n    print(input().upper())\n", [testcase('echo()', 'HELLO', "hello\n"), testcase('echo()', 'BYE', 'bye')])));
expect_case('python3: support file (404, PUT, run again)', fn() => $allright(check('python3', "def first():\n    return open('data.txt').read().split()[0]\n", [testcase('print(first())', 'alpha')], ['files' => ['data.txt' => "alpha beta\n" . uniqid() . "\n"]])));
expect_case('python3: runtime error, traceback without the jail folder', function () use ($VALID) {
    $o = check('python3', "def inv(n):\n    return 1 / n\n", [testcase('print(inv(0))', '?')]);
    $got = implode("\n", gots($o));
    return [$o->status === $VALID && str_contains($got, 'File "__tester__.python3", line 2, in inv') && str_contains($got, 'ZeroDivisionError') && !str_contains($got, '/work'), ['status' => $o->status, 'got' => $got, 'error' => $o->errormessage]];
});
expect_case('python3: syntax error is a compile error naming __tester__.python3', function () use ($SYNTAX) {
    $o = check('python3', "def f(:\n    pass\n", [testcase('f()', '')]);
    return [$o->status === $SYNTAX && str_contains($o->errormessage, '__tester__.python3') && str_contains($o->errormessage, 'SyntaxError') && !str_contains($o->errormessage, '/work'), ['status' => $o->status, 'error' => $o->errormessage]];
});
expect_case('python3: 300 MB under the 1000 MB default', fn() => $allright(check('python3', "def big():\n    b = bytearray(300 * 1000 * 1000)\n    for i in range(0, len(b), 4096): b[i] = 1\n    return len(b)\n", [testcase('print(big())', '300000000')])));
expect_case('python3: runaway memory ends with MemoryError', function () use ($VALID) {
    $o = check('python3', "def grow():\n    a = []\n    while True:\n        a.append(bytearray(10 ** 7))\n", [testcase('grow()', '')]);
    $got = implode("\n", gots($o));
    return [$o->status === $VALID && str_contains($got, 'MemoryError') && str_contains($got, '__tester__.python3'), ['status' => $o->status, 'got' => $got, 'error' => $o->errormessage]];
});
expect_case('python3: time limit (cputime 1)', function () use ($VALID) {
    $o = check('python3', "def spin():\n    while True: pass\n", [testcase('spin()', '')], ['cputimelimitsecs' => '1']);
    $got = implode("\n", gots($o));
    return [$o->status === $VALID && str_contains($got, get_string('resultstring-timelimit', 'qtype_coderunner')) , ['status' => $o->status, 'got' => $got, 'error' => $o->errormessage]];
});
expect_case('python3: 3 MB of output: kept to 2,048,000 bytes, no error', function () use ($VALID) {
    $o = check('python3', "def flood():\n    print('x' * 3000000)\n", [testcase("flood()\nprint('end')", 'end')]);
    $got = implode('', gots($o));
    return [$o->status === $VALID && !$o->all_correct() && !str_contains($got, '***'), ['status' => $o->status, 'error' => $o->errormessage, 'got' => substr($got, -200)]];
});
expect_case('python3: combinator program over 256 KiB', function () use ($allright) {
    $filler = implode("\n", array_map(fn($i) => "# filler line $i " . str_repeat('.', 40), range(1, 2400)));
    $answer = "$filler\ndef sqr(n):\n    return n * n\n";
    if (strlen($answer) * 2 < 262144) {
        return [false, 'answer too small'];
    }
    return $allright(check('python3', $answer, [testcase('print(sqr(3))', '9'), testcase('print(sqr(4))', '16')]));
});

// C, C++, Java, Node, PHP
expect_case('c_program: stdin, sum', fn() => $allright(check('c_program', "#include <stdio.h>\nint main(void) { int a, b; if (scanf(\"%d %d\", &a, &b) != 2) return 1; printf(\"%d\\n\", a + b); return 0; }\n", [testcase('', '3', "1 2\n"), testcase('', '30', "10 20\n")])));
expect_case('c_program: compile error', function () use ($SYNTAX) {
    $o = check('c_program', "int main(void) { return 0 }\n", [testcase('', '')]);
    return [$o->status === $SYNTAX && str_contains($o->errormessage, 'error') && !str_contains($o->errormessage, '/work'), ['status' => $o->status, 'error' => $o->errormessage]];
});
expect_case('c_function: combinator with -lm', fn() => $allright(check('c_function', "double hyp(double a, double b) { return sqrt(a * a + b * b); }\n", [testcase('printf("%.1f\n", hyp(3, 4))', '5.0'), testcase('printf("%.1f\n", hyp(6, 8))', '10.0')])));
expect_case('c_program: SIGTRAP in the shell\'s words', function () use ($VALID) {
    $o = check('c_program', "#include <signal.h>\nint main(void) { raise(SIGTRAP); return 0; }\n", [testcase('', '')]);
    $got = implode("\n", gots($o));
    return [$o->status === $VALID && str_contains($got, 'Trace/breakpoint trap'), ['status' => $o->status, 'got' => $got, 'error' => $o->errormessage]];
});
expect_case('cpp_program: hello', fn() => $allright(check('cpp_program', "#include <iostream>\nint main() { std::cout << \"Hello\" << std::endl; }\n", [testcase('', 'Hello')])));
expect_case('java_program: hello', fn() => $allright(check('java_program', "public class Hello {\n  public static void main(String[] a) { System.out.println(\"Hi\"); }\n}\n", [testcase('', 'Hi')])));
expect_case('java_program: stack trace with spaces, no tab', function () use ($VALID) {
    $o = check('java_program', "public class Boom {\n  public static void main(String[] a) { throw new RuntimeException(\"boom\"); }\n}\n", [testcase('', '')]);
    $got = implode("\n", gots($o));
    return [$o->status === $VALID && str_contains($got, "\n        at Boom.main(Boom.java:2)") && !str_contains($got, "\t"), ['status' => $o->status, 'got' => $got, 'error' => $o->errormessage]];
});
expect_case('nodejs: combinator', fn() => $allright(check('nodejs', "function sqr(n) { return n * n }\n", [testcase('console.log(sqr(3))', '9'), testcase('console.log(sqr(5))', '25')])));
expect_case('nodejs: runtime error without the jail folder', function () use ($VALID) {
    $o = check('nodejs', "function boom() { throw new Error('boom') }\n", [testcase('boom()', '')]);
    $got = implode("\n", gots($o));
    return [$o->status === $VALID && str_contains($got, 'Error: boom') && str_contains($got, '__tester__.js') && !str_contains($got, '/work'), ['status' => $o->status, 'got' => $got, 'error' => $o->errormessage]];
});
expect_case('php: combinator', fn() => $allright(check('php', "<?php\nfunction sqr(\$n) { return \$n * \$n; }\n", [testcase('echo sqr(3) . "\n"', '9'), testcase('echo sqr(7) . "\n"', '49')])));
expect_case('php: syntax error is a compile error', function () use ($SYNTAX) {
    $o = check('php', "<?php\nfunction sqr(\$n) { return \$n * \$n }\n", [testcase('echo sqr(3);', '9')]);
    return [$o->status === $SYNTAX && str_contains($o->errormessage, 'Parse error'), ['status' => $o->status, 'error' => $o->errormessage]];
});

// the key: a wrong one, and a client whose quota is used up
expect_case('a wrong key: CodeRunner\'s authentication error', function () use ($SANDBOX) {
    $o = check('python3', "x = 1\n", [testcase('print(x)', '1')], [], 'not-a-key');
    return [$o->status === $SANDBOX && str_contains($o->errormessage, get_string('errorstring-autherror', 'qtype_coderunner')), ['status' => $o->status, 'error' => $o->errormessage]];
});
expect_case('a used-up quota: CodeRunner\'s submission limit error', function () use ($SANDBOX) {
    $o = check('python3', "x = 1\n", [testcase('print(x)', '1')], [], getenv('JOBE_APIKEY_SPENT'));
    return [$o->status === $SANDBOX && str_contains($o->errormessage, get_string('errorstring-submissionlimitexceeded', 'qtype_coderunner')), ['status' => $o->status, 'error' => $o->errormessage]];
});

printf("%d passed, %d failed\n", $ok, $failed);
exit($failed ? 1 : 0);
