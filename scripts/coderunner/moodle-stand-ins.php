<?php
// Thin stand-ins for the few Moodle functions and classes CodeRunner's jobesandbox and jobrunner call,
// so that CodeRunner's own classes (from the tree CODERUNNER_SRC names, never copied here) run outside
// Moodle: get_config, get_string, make_temp_directory, the grading cache (off), Moodle's curl wrapper
// (lib/filelib.php: headers kept across requests on one object, PUT sends its string body, info holds
// the HTTP code) and the class autoloader. Used by scripts/check-coderunner.sh only.

define('MOODLE_INTERNAL', 1);

$crsrc = rtrim((string) getenv('CODERUNNER_SRC'), '/');
if ($crsrc === '' || !is_file("$crsrc/classes/jobesandbox.php")) {
    fwrite(STDERR, "CODERUNNER_SRC does not name a CodeRunner tree\n");
    exit(2);
}

// Moodle's layout around the plugin: dirroot/question/type/coderunner is CodeRunner's tree, but for
// questiontype.php, which needs Moodle's question engine (the jobrunner only requires it to be there)
$moodleroot = sys_get_temp_dir() . '/arbiter-coderunner-' . getmypid();
$plugin = "$moodleroot/question/type/coderunner";
@mkdir($plugin, 0700, true);
@mkdir("$moodleroot/lib", 0700, true);
@mkdir("$moodleroot/temp", 0700, true);
foreach (scandir($crsrc) as $entry) {
    if ($entry === '.' || $entry === '..' || $entry === 'questiontype.php') {
        continue;
    }
    @symlink("$crsrc/$entry", "$plugin/$entry");
}
file_put_contents("$plugin/questiontype.php", "<?php\n// stand-in: Moodle's question type base is not loaded\n");
file_put_contents("$moodleroot/lib/filelib.php", "<?php\n// stand-in: the curl class is defined by moodle-stand-ins.php\n");
register_shutdown_function(function () use ($moodleroot) {
    exec('rm -rf ' . escapeshellarg($moodleroot));
});

global $CFG;
$CFG = new stdClass();
$CFG->dirroot = $moodleroot;
$CFG->libdir = "$moodleroot/lib";
$CFG->tempdir = "$moodleroot/temp";

/** The plugin's settings: the two a Moodle admin sets (host, key), the rest as a fresh install has them. */
$STANDIN_CONFIG = [
    'jobe_host' => getenv('JOBE_HOST'),
    'jobe_apikey' => getenv('JOBE_APIKEY'),
    'jobesandbox_enabled' => 1,
    'enablegradecache' => 0,
];

function get_config($plugin, $name = null) {
    global $STANDIN_CONFIG;
    return $STANDIN_CONFIG[$name] ?? false;
}

function get_string($identifier, $component = '', $a = null) {
    global $crsrc;
    static $strings = null;
    if ($strings === null) {
        $string = [];
        include("$crsrc/lang/en/qtype_coderunner.php");
        $strings = $string;
    }
    $text = $strings[$identifier] ?? "[[$identifier]]";
    if (is_scalar($a)) {
        $text = str_replace('{$a}', (string) $a, $text);
    } else if ($a !== null) {
        foreach ((array) $a as $k => $v) {
            if (is_scalar($v)) {
                $text = str_replace('{$a->' . $k . '}', (string) $v, $text);
            }
        }
    }
    return $text;
}

function make_temp_directory($dir) {
    global $CFG;
    $path = "$CFG->tempdir/$dir";
    @mkdir($path, 0700, true);
    return $path;
}

class coding_exception extends Exception {
}

class moodle_exception extends Exception {
}

/** The grading cache: off (enablegradecache 0), never read. */
class cache {
    public static function make($component, $area) {
        return new class {
            public function get($key) {
                return false;
            }
            public function set($key, $value) {
                return true;
            }
        };
    }
}

/** Moodle's curl wrapper, the parts CodeRunner uses. */
class curl {
    public $info = [];
    private $headers = [];
    private $options = [];

    public function setopt($options = []) {
        foreach ($options as $k => $v) {
            $this->options[$k] = $v;
        }
    }

    /** Kept across requests on one object, each line once (as Moodle's: the retried POST sends one key). */
    public function setHeader($header) {
        foreach ((array) $header as $h) {
            $h = preg_replace('/[\r\n]/', '', $h);
            if (!in_array($h, $this->headers)) {
                $this->headers[] = $h;
            }
        }
    }

    public function get($url, $params = [], $options = []) {
        return $this->request($url, []);
    }

    public function post($url, $params = '', $options = []) {
        return $this->request($url, [CURLOPT_POST => 1, CURLOPT_POSTFIELDS => $params]);
    }

    public function put($url, $params = [], $options = []) {
        return $this->request($url, [CURLOPT_CUSTOMREQUEST => 'PUT', CURLOPT_POSTFIELDS => $params]);
    }

    private function request($url, $opts) {
        $ch = curl_init($url);
        curl_setopt($ch, CURLOPT_RETURNTRANSFER, true);
        curl_setopt($ch, CURLOPT_HTTPHEADER, $this->headers);
        curl_setopt($ch, CURLOPT_TIMEOUT, 300);
        foreach ($this->options as $k => $v) {
            if (is_string($k) && defined($k)) {
                curl_setopt($ch, constant($k), $v);
            }
        }
        foreach ($opts as $k => $v) {
            curl_setopt($ch, $k, $v);
        }
        $body = curl_exec($ch);
        $this->info = curl_getinfo($ch);
        curl_close($ch);
        return $body;
    }
}

// Moodle's class autoloader for the plugin: qtype_coderunner_x in classes/x.php, qtype_coderunner\x in classes/x.php
spl_autoload_register(function ($class) use ($plugin) {
    if (strpos($class, 'qtype_coderunner\\') === 0) {
        $file = "$plugin/classes/" . str_replace('\\', '/', substr($class, strlen('qtype_coderunner\\'))) . '.php';
    } else if (strpos($class, 'qtype_coderunner_') === 0) {
        $file = "$plugin/classes/" . substr($class, strlen('qtype_coderunner_')) . '.php';
    } else {
        return;
    }
    if (is_file($file)) {
        require_once($file);
    }
});
