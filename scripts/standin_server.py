#!/usr/bin/env python3
"""An OpenAI-compatible stand-in server on 127.0.0.1 for tests that need a served model without
vLLM: `GET /v1/models` lists one model, `POST /v1/completions` echoes every prompt (token ids)
with log-probabilities from a hand formula, the one of bias_testkit::standin::fake_logprob:

    log P(token | previous) at position t = -(((previous * 31 + token * 7 + t) mod 97) + 1) / 16

(every top-1 entry is the token itself). Standard library only.

    python3 scripts/standin_server.py URL_FILE [MODEL]

serves until killed and writes its `http://127.0.0.1:PORT/v1` to URL_FILE once listening.
"""
import http.server
import json
import os
import sys
import threading


def logprob(previous, token, position):
    return -(((previous * 31 + token * 7 + position) % 97) + 1) / 16


class StandIn:
    """The server, started on a free port in a daemon thread; `close()` stops it."""

    def __init__(self, model="org/standin", max_model_len=256):
        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, body):
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self.reply({"data": [{"id": model, "max_model_len": max_model_len}]})

            def do_POST(self):
                request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                choices = []
                for i, ids in enumerate(request["prompt"]):
                    lps = [None] + [logprob(ids[t - 1], ids[t], t) for t in range(1, len(ids))]
                    lps.append(-1.0)  # the one generated token
                    top = [None] + [{"x": lp} for lp in lps[1:]]
                    choices.append({"index": i, "logprobs": {"token_logprobs": lps,
                                                             "top_logprobs": top}})
                self.reply({"choices": choices})

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


def main():
    url_file = sys.argv[1]
    server = StandIn(*sys.argv[2:3])
    # Written whole, then renamed: a reader never sees half a URL.
    with open(url_file + ".part", "w", encoding="utf-8") as f:
        f.write(server.url + "\n")
    os.replace(url_file + ".part", url_file)
    threading.Event().wait()


if __name__ == "__main__":
    main()
