"""Start the real ``companion serve`` in a child process for end-to-end tests."""

from __future__ import annotations

import http.cookiejar
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TABLE_PIN = "2468"
HOST_PIN = "1357"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_config(directory: Path, db: Path) -> Path:
    config = directory / "companion.toml"
    config.write_text(
        f'[server]\npin = "{TABLE_PIN}"\nhost_pin = "{HOST_PIN}"\n'
        f'[storage]\ndb = "{db}"\n[games]\nextra = ["tests.support.tally:GAME"]\n',
        encoding="utf-8",
    )
    return config


class Server:
    def __init__(self, config: Path, port: int | None = None, sim: bool = True) -> None:
        self.config = config
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.sim = sim
        self.proc: subprocess.Popen[bytes] | None = None
        self.csrf = ""
        self._opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def join(self, role: str = "host") -> Server:
        """Join the table like a tablet (cookie and CSRF token kept for later requests)."""
        pin = HOST_PIN if role == "host" else TABLE_PIN
        status, body = self.post("/api/join", {"pin": pin, "role": role})
        if status != 200:
            raise RuntimeError(f"join as {role} failed: {body}")
        self.csrf = body["csrf"]
        return self

    def start(self, timeout: float = 60.0) -> Server:
        args = [sys.executable, "-m", "companion.cli", "serve", "--config", str(self.config),
                "--port", str(self.port)]
        if self.sim:
            args.append("--sim")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                output = self.proc.stdout.read().decode() if self.proc.stdout else ""
                raise RuntimeError(f"server exited early: {output}")
            try:
                self.get("/api/health")
                return self.join()
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("server did not start")

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def cookie_header(self) -> str:
        handler = next(h for h in self._opener.handlers
                       if isinstance(h, urllib.request.HTTPCookieProcessor))
        return "; ".join(f"{c.name}={c.value}" for c in handler.cookiejar)

    def get(self, path: str) -> Any:
        with self._opener.open(self.base + path, timeout=10) as response:
            return json.loads(response.read())

    def post(self, path: str, body: Any) -> tuple[int, Any]:
        request = urllib.request.Request(
            self.base + path, data=json.dumps(body).encode(), method="POST",
            headers={"Content-Type": "application/json", "X-CSRF-Token": self.csrf},
        )
        try:
            with self._opener.open(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")
