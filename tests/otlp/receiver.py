#!/usr/bin/env python3
"""An OTLP/HTTP receiver for tests/otlp.rs: listens on 127.0.0.1 (a free
port, printed as the first line of stdout), answers POSTs to /v1/logs and
/v1/metrics, and appends one JSON line per request it answered to --out:
the path, its status, the headers, and (for 2xx answers) the body decoded
to OTLP/JSON's shape (camelCase names, 64-bit integers as strings, enums as
integers). Protobuf bodies are decoded with the opentelemetry-proto
package; JSON bodies need nothing. `--check` exits 3 when the package is
missing (the test then skips unless CACHEWISE_OTLP_PY=required).

Behaviour: --fail N answers the first N requests with --fail-status
(503 by default, with Retry-After: 1; another status with a JSON
google.rpc.Status whose message holds a terminal escape). --delay S
keeps each answer back S seconds after the request is recorded, as a slow
collector that has taken a batch but not yet said so.
"""

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def proto_modules():
    from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
    from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2

    return logs_service_pb2, metrics_service_pb2


def decode_protobuf(path, body):
    from google.protobuf.json_format import MessageToDict

    logs, metrics = proto_modules()
    msg = (logs.ExportLogsServiceRequest if path == "/v1/logs" else metrics.ExportMetricsServiceRequest)()
    msg.ParseFromString(body)
    return MessageToDict(msg, use_integers_for_enums=True)


def answer_body(path, content_type):
    if "json" in content_type:
        return b"{}", "application/json"
    logs, metrics = proto_modules()
    resp = (logs.ExportLogsServiceResponse if path == "/v1/logs" else metrics.ExportMetricsServiceResponse)()
    return resp.SerializeToString(), "application/x-protobuf"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--fail", type=int, default=0)
    ap.add_argument("--fail-status", type=int, default=503)
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    if args.check:
        try:
            proto_modules()
        except ImportError as e:
            print(f"skip: the opentelemetry-proto package is missing ({e})")
            sys.exit(3)
        return
    lock = threading.Lock()
    seen = {"n": 0}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            ctype = self.headers.get("content-type", "")
            with lock:
                seen["n"] += 1
                n = seen["n"]
            status = args.fail_status if n <= args.fail else 200
            record = {
                "path": self.path,
                "status": status,
                "content_type": ctype,
                "headers": {k.lower(): v for k, v in self.headers.items()},
            }
            if self.path not in ("/v1/logs", "/v1/metrics"):
                status = record["status"] = 404
            if 200 <= status < 300:
                record["body"] = json.loads(body) if "json" in ctype else decode_protobuf(self.path, body)
                out, out_type = answer_body(self.path, ctype)
            elif status == 503:
                out, out_type = b"busy", "text/plain"
            else:
                out = json.dumps({"code": 3, "message": "bad data: \x1b[31mred"}).encode()
                out_type = "application/json"
            with lock:
                with open(args.out, "a") as f:
                    f.write(json.dumps(record) + "\n")
            time.sleep(args.delay)
            try:
                self.send_response(status)
                if status == 503:
                    self.send_header("Retry-After", "1")
                self.send_header("Content-Type", out_type)
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the exporter was killed while waiting for the answer

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
