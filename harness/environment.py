"""What of the harness's environment a port may see, and what of it must never show; and which of
the machine's paths a manifest may ask the sandbox to show a port beyond what it shows every port.

A port is code someone else sent in. In the sandbox and in a container it sees an allowlist of
the harness's variables (the locale, the terminal's name, and what its manifest's ``env`` names)
with a PATH, HOME and TMPDIR of its own; never a variable that holds a secret, whether its name
says so or its value is shaped like one. In every mode, the harness's secrets, and any text shaped
like a known token, are masked wherever a report quotes what a port printed.

What a manifest's ``reads`` may name is an allowlist: a short grammar of the places where a
language's tools keep their data (READ_PLACES), less every place that is someone's or the
harness's own (private_places), checked when the manifest is read and again, where links lead,
when the sandbox is made.
"""

from __future__ import annotations

import os
import pwd
import re
import stat
import sys
import tempfile
import threading
import weakref
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

from harness.model import QUOTE_CHARS, shorten

PASSED_THROUGH = ("LANG", "LANGUAGE", "TERM", "TZ")
"""Variables every port sees as the harness does, with every ``LC_*`` one."""
SECRET_NAME = re.compile(
    r"TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|KEY|CREDENTIAL|CREDS|JWT|HOOK|COOKIE|BEARER|CONNECTION_?STRING|DSN|GIT_CONFIG"
    r"|SSHPASS|PGPASS|(?<!^)(?<!^OLD)PWD|PWD(?=.)|AUTH(?!ORS?(?:_|$))|(?:^|_)(?:PAT|PASS|UR[IL]|LOGIN)(?:_|$)",
    re.IGNORECASE,
)
"""A variable whose name says this holds a secret, or may (``CI_JOB_JWT``, ``GH_PAT``, ``SLACK_WEBHOOK_URL``,
``MYHOOK``, ``DOCKER_AUTH_CONFIG``, ``SENTRYDSN``, ``DB_URI``, ``PIP_INDEX_URL``, ``GIT_CONFIG_PARAMETERS``,
which may carry an authorisation header, ``MYSQL_PWD``, ``SSHPASS``, ``PGPASSFILE``, ``REGISTRY_LOGIN``; not
``GIT_AUTHOR_NAME``, ``PATH``, nor ``PWD`` and ``OLDPWD``, the shell's current folders): never passed on, its
value masked in reports."""
SECRET_SHAPE = re.compile(
    r"(?<![A-Za-z0-9_-])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|gl(?:pat|ptt|dt|rt|cbt|imt|soat|ffct|agent)-[A-Za-z0-9_-]{20,}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"
    r"|npm_[A-Za-z0-9]{36}|pypi-AgE[A-Za-z0-9_-]{50,}|dckr_pat_[A-Za-z0-9_-]{20,}|AIza[A-Za-z0-9_-]{35}|[rs]k_live_[A-Za-z0-9]{20,}"
    r"|hf_[A-Za-z0-9]{30,}|sk-[A-Za-z0-9_-]{20,}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|ya29\.[A-Za-z0-9_-]{20,}"
    r"|hvs\.[A-Za-z0-9_-]{20,}|do[opr]_v1_[a-f0-9]{64})"
    r"|https://(?:hooks\.slack\.com|discord(?:app)?\.com/api/webhooks)/[A-Za-z0-9/_-]+"
    r"|-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|\Z)"
)
"""Text shaped like a known token, whatever variable holds it: GitHub's, GitLab's, Slack's (and a
Slack or Discord webhook's address), an AWS access key, a JWT, npm's, PyPI's, Docker Hub's,
Google's (an API key, an OAuth access token ``ya29.``), Stripe's, Hugging Face's, OpenAI's and
Anthropic's keys (``sk-``, ``sk-proj-``, ``sk-ant-``), SendGrid's, Vault's, DigitalOcean's, a PEM
private key. Never passed to a port; masked in every report. A token starts where a run of its
characters does (not after a letter, a digit, ``_`` or ``-``), so that masking tries
each run once and takes a time linear in the text, whatever a port prints."""
URL_CREDENTIALS = re.compile(r"(?P<scheme>(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://)[^\s/:@]*:(?P<password>[^\s/@]+)@")
"""A URL that carries a user's password (``redis://default:PASSWORD@host``): its password is masked."""
URL_QUERY_SECRET = re.compile(
    r"(?P<name>[?&;](?:access_token|token|api_?key|key|secret|password|sig)=)[^\s&#;'\"<>]{4,}", re.IGNORECASE,
)
"""A URL's query that carries a secret (``?token=…``, ``&access_token=…``, ``?key=…``, a signature):
its value is masked, its name kept."""
SECRET_VARIABLES = ("HANOI_PG_DSN", "DATABASE_URL", "PGPASSWORD")
"""Variables that hold a secret, or a connection string with one, under a name that does not say so."""
SHORTEST_SECRET = 4
"""A shorter value (``1``, ``yes``) is no secret worth masking, and masking it would garble every report."""
SETTINGS_WORDS = frozenset({"true", "false", "none", "null", "enabled", "disabled", "always", "never"})
"""Values that say how, not what (``DOCKER_AUTH_DISABLED=true``): no secret, and masked they would
garble every report that says ``true``."""
MASK = "***"
VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def secret_name(name: str) -> bool:
    """Whether a variable of this name holds a secret, or may."""
    return bool(SECRET_NAME.search(name)) or name in SECRET_VARIABLES


def secret_value(value: str) -> bool:
    """Whether a value holds a secret by its shape: a known token, or a URL with a password."""
    return bool(SECRET_SHAPE.search(value) or URL_CREDENTIALS.search(value) or URL_QUERY_SECRET.search(value))


def port_environment(names: Iterable[str], home: str, tmpdir: str, path: str | None = None) -> dict[str, str]:
    """A port's environment where it is held (sandbox, container): the locale and terminal, the
    variables ``names`` lists as the harness has them (a secret's never), and its own HOME, TMPDIR
    and PATH (the harness's, unless given: an image has its own)."""
    environment = {
        name: value
        for name, value in os.environ.items()
        if (name in PASSED_THROUGH or name.startswith("LC_") or name in names) and not secret_name(name) and not secret_value(value)
    }
    environment.update(HOME=home, TMPDIR=tmpdir, PATH=path if path is not None else os.environ.get("PATH", os.defpath))
    return environment


class Secrets:
    """The values that must never appear in a report: those of the harness's secret variables (by
    name or by value, a URL's password alone too), and any other a command line gave (a DSN's
    password); and any text shaped like a known token or a URL's password, wherever it came from."""

    def __init__(self, environment: Mapping[str, str]) -> None:
        self._lock = threading.Lock()
        self._values: set[str] = set()
        _RUNS.add(self)
        for name, value in environment.items():
            if secret_name(name) or secret_value(value):
                self.add(value)
                for found in URL_CREDENTIALS.finditer(value):
                    self.add(found["password"])

    def add(self, value: str | None) -> None:
        """Mask ``value`` from now on (one too short to be a secret, or a setting's word, is not)."""
        if value and len(value) >= SHORTEST_SECRET and value.lower() not in SETTINGS_WORDS:
            with self._lock:
                self._values.add(value)

    def mask(self, text: str) -> str:
        """``text`` with every secret in it replaced by ``***``, the longest first, then every text
        shaped like a token, and every URL's user and password."""
        with self._lock:
            values = sorted(self._values, key=len, reverse=True)
        for value in values:
            if value in text:
                text = text.replace(value, MASK)
        return _shapes_masked(text)


def _shapes_masked(text: str) -> str:
    text = URL_CREDENTIALS.sub(rf"\g<scheme>{MASK}@", SECRET_SHAPE.sub(MASK, text))
    return URL_QUERY_SECRET.sub(rf"\g<name>{MASK}", text)


_RUNS: weakref.WeakSet[Secrets] = weakref.WeakSet()
"""The secrets of every run of this process, which a cut of a port's text masks first."""


def masked(text: str) -> str:
    """``text`` with the secrets of every run under way masked, as the run's report will mask them,
    and every text shaped like a token: what cuts a port's line short masks it first, so that a cut
    through a secret leaves nothing of it that masking the cut line could no longer tell."""
    for secrets in list(_RUNS):
        text = secrets.mask(text)
    return _shapes_masked(text)


def quote(text: str, limit: int = QUOTE_CHARS, whole: int | None = None) -> str:
    """A port's ``text`` quoted for a message as :func:`~harness.model.shorten` quotes it, its secrets
    masked before it is cut."""
    return shorten(masked(text), limit, whole)


def cache_root() -> Path:
    """Where built programs are kept: $HANOI_CACHE, or hanoi-polyglot in the user's cache folder."""
    if os.environ.get("HANOI_CACHE"):
        return Path(os.environ["HANOI_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hanoi-polyglot"


READ_PLACES = tuple(PurePosixPath(top) for top in ("/usr", "/etc", "/var/lib", "/opt"))
"""Where a language's tools keep their data: a manifest's ``reads`` names something below one of
these (``/usr/...``, ``/etc/NAME`` of ETC_READS, ``/var/lib/NAME``, ``/opt/NAME``), and nothing else."""
ETC_READS = re.compile(r"java-[0-9]+-openjdk|mono|php|gnucobol")
"""What of ``/etc`` a manifest may name, the folder of one language's tools' settings: OpenJDK's,
Mono's, PHP's, GnuCOBOL's, what the ports' tools read. ``/etc`` holds other tools' settings and
credentials beside them (``gitconfig``, ``npmrc``, ``pip.conf``, ``apt/auth.conf.d``, a backup
of ``shadow``), which no pattern of names tells from a language's, so a folder is added here when
a port's tool needs it, never taken by its shape."""
READ_PATH = re.compile(r"(?:/[A-Za-z0-9_+][A-Za-z0-9_.+-]{0,99}){2,16}")
"""A path a manifest may ask to read: absolute, two folders deep at least, plain names (no ``..``,
no hidden name, no option, no space), as bubblewrap takes it as one argument."""
SANDBOX_OWN = ("/etc/passwd", "/etc/group", "/etc/passwd-", "/etc/group-")
"""What the sandbox makes for every port itself (its own accounts): bound over, it would be lost."""
KEY_PLACES = (
    "/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d", "/etc/ssh", "/etc/ssl/private",
    "/etc/pki/tls/private", "/etc/krb5.keytab", "/etc/krb5kdc", "/etc/wireguard", "/etc/NetworkManager/system-connections",
    "/etc/wpa_supplicant", "/etc/netplan", "/etc/ppp", "/etc/ipsec.secrets", "/etc/ipsec.d", "/etc/swanctl", "/etc/openvpn",
    "/etc/letsencrypt", "/etc/docker", "/etc/containerd", "/etc/kubernetes", "/etc/rancher", "/etc/gitlab-runner", "/etc/mysql",
    "/etc/sssd", "/etc/security/opasswd", "/etc/libvirt", "/etc/ceph", "/etc/vault.d",
    "/var/lib/docker", "/var/lib/containerd", "/var/lib/kubelet", "/var/lib/rancher", "/var/lib/etcd", "/var/lib/lxd", "/var/lib/lxc",
    "/var/lib/incus", "/var/lib/libvirt", "/var/lib/machines", "/var/lib/postgresql", "/var/lib/pgsql", "/var/lib/mysql",
    "/var/lib/redis", "/var/lib/mongodb", "/var/lib/rabbitmq", "/var/lib/ldap", "/var/lib/jenkins", "/var/lib/gitlab-runner",
    "/var/lib/buildkite-agent", "/var/lib/sudo", "/var/lib/samba", "/var/lib/sss", "/var/lib/krb5kdc", "/var/lib/NetworkManager",
    "/var/lib/iwd", "/var/lib/bluetooth", "/var/lib/systemd", "/var/lib/private", "/var/lib/cloud", "/var/lib/waagent", "/var/lib/tpm",
    "/var/lib/polkit-1", "/var/lib/AccountsService", "/var/lib/snapd",
    "/opt/actions-runner", "/opt/buildkite-agent", "/opt/containerd",
)
"""Where keys and secrets are kept within READ_PLACES: a host's and users' keys, networks' and
VPNs' passwords, container engines' and clusters' data and credentials, databases' files, CI
runners' tokens, systemd's credentials, a cloud machine's user data."""


def private_places(ports: Iterable[Path] = ()) -> list[tuple[PurePosixPath, str]]:
    """The places no port may be shown, nor a folder that holds one, each with what it is: what the
    sandbox makes itself, KEY_PLACES, every user's home in the password database (but ``/``, the
    home of accounts that have none of their own), the folders that hold the ports (``ports``) and
    the checkout they are in (the harness's too), the harness's own source, its temporary folder
    (as Python finds it: TMPDIR, TEMP or TMP), build cache and virtual environment; each both as
    named and where its links lead."""
    places = [(PurePosixPath(path), "what the sandbox makes for every port itself") for path in SANDBOX_OWN]
    places += [(PurePosixPath(path), "a place where keys and secrets are kept") for path in KEY_PLACES]
    places += [(home, f"the home of {user.pw_name}") for user in pwd.getpwall() for home in _named_and_real(user.pw_dir)]
    places += [(folder, "the folder that holds the ports") for path in ports for folder in _named_and_real(path)]
    checkouts = {top for path in (*ports, HARNESS_SOURCE) if (top := checkout_top(Path(path))) is not None}
    places += [(folder, "the checkout the ports or the harness are in") for top in checkouts for folder in _named_and_real(top)]
    places += [(folder, "the harness's own source") for folder in _named_and_real(HARNESS_SOURCE)]
    temporary = {tempfile.gettempdir(), os.environ.get("TMPDIR", "")}
    places += [(folder, "the harness's temporary folder") for path in temporary for folder in _named_and_real(path)]
    places += [(folder, "the harness's build cache") for folder in _named_and_real(cache_root())]
    if sys.prefix != sys.base_prefix:
        places += [(folder, "the harness's virtual environment") for folder in _named_and_real(sys.prefix)]
    return places


HARNESS_SOURCE = Path(__file__).resolve().parent
"""The harness's own package: its code, which a port has no reason to read."""


def checkout_top(path: Path) -> Path | None:
    """The top of the git checkout ``path`` is in (the nearest folder above it, or itself, that has
    a ``.git``), found without running git, which would read the checkout's settings; None if none."""
    start = path.absolute()
    return next((folder for folder in (start, *start.parents) if (folder / ".git").exists()), None)


def _named_and_real(path: str | Path) -> set[PurePosixPath]:
    """``path`` as named (from the current folder, where it is relative: a root given as ``.``) and
    where its links lead; nothing for ``/`` or for no path."""
    if not str(path):
        return set()
    given = Path(path).absolute()
    return {PurePosixPath(os.path.normpath(given)), PurePosixPath(given.resolve())} - {PurePosixPath("/")}


def refused_read(path: str, ports: Iterable[Path] = ()) -> str | None:
    """Why a port may not be shown ``path`` (a manifest's ``reads``, or where it leads once links
    are resolved), if it may not: it must be a plain path below one of READ_PLACES, neither inside
    nor holding one of the private_places (``ports``: the folders that hold the ports)."""
    if not READ_PATH.fullmatch(path) or ".." in path.split("/"):
        return f"{path[:80]!r} is not an absolute path of plain names, two folders deep at least (/etc/java-17-openjdk)"
    asked = PurePosixPath(path)
    if not any(asked.is_relative_to(top) and asked != top for top in READ_PLACES):
        return f"{path} is not among the places where a language's tools keep their data: /usr/..., /etc/NAME, /var/lib/NAME, /opt/NAME"
    for place, what in private_places(ports):
        if asked == place:
            return f"{path} is {what}: no port may read it"
        if asked.is_relative_to(place):
            return f"{path} is in {place}, {what}: no port may read it"
        if place.is_relative_to(asked):
            return f"{path} holds {place}, {what}: no port may read it"
    if why := working_folder(asked):
        return f"{why}: no port may read it"
    if asked.is_relative_to("/etc") and not ETC_READS.fullmatch(asked.parts[2]):
        return f"{path} is not the settings of a language's tools in /etc that a port may read: /etc/{ETC_READS.pattern.replace('|', ', /etc/')}"
    return None





MOST_FOLDERS_CHECKED = 4096
"""The most folders below a ``reads`` path that are checked to be the system's: a path that holds
more (``/usr/lib``) is refused, as one whose every folder could not be told to be the system's."""


def working_folder(asked: PurePosixPath) -> str | None:
    """Why ``asked`` (below one of READ_PLACES) is, is in or holds a folder that is someone's work
    rather than a language's tools' data, which the system's package manager installs as root: a
    folder owned by the harness's own user (not root), such as another run's temporary folder
    under /var/lib or /opt, or a folder every user may write, a shared temporary one. None where
    it is none of these, or where the machine has no such path."""
    top = next(top for top in READ_PLACES if asked.is_relative_to(top))
    for folder in (asked, *(parent for parent in asked.parents if parent.is_relative_to(top) and parent != top)):
        if why := _not_the_systems(Path(folder)):
            return f"{asked} is {why}" if folder == asked else f"{asked} is in {folder}, {why}"
    checked = 0
    if Path(asked).is_symlink():  # where it leads is checked when the sandbox is made, which resolves it
        return None
    for parent, folders, _ in os.walk(asked):
        for name in folders:
            checked += 1
            if checked > MOST_FOLDERS_CHECKED:
                return f"{asked} holds more than {MOST_FOLDERS_CHECKED} folders, too many to check that each is the system's"
            if why := _not_the_systems(Path(parent, name)):
                return f"{asked} holds {Path(parent, name)}, {why}"
    return None


def _not_the_systems(folder: Path) -> str | None:
    try:
        status = folder.lstat()
    except OSError:
        return None
    if not stat.S_ISDIR(status.st_mode):
        return None
    if status.st_uid == os.geteuid() != 0:
        return "a folder the harness's own user owns (another run's temporary folder, someone's work), not the system's"
    if status.st_mode & stat.S_IWOTH:
        return "a folder every user may write (a shared temporary folder), not the system's"
    return None
