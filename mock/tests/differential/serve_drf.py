#!/usr/bin/python3
"""Serves the DRF stand-in of GET /edw/api/entities-images/ on 127.0.0.1 (Debian's Django 3.2 + DRF 3.14).

Usage: /usr/bin/python3 serve_drf.py --dataset FILE [--port 0] [--host 127.0.0.1] [--user NAME:PASSWORD]
Prints `listening on http://HOST:PORT` once ready, like the mock does.
"""

import argparse
import os
import shutil
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ["DJANGO_SETTINGS_MODULE"] = "edwsim.settings"


def make_server(host, port):
    from django.core.servers import basehttp
    from django.core.servers.basehttp import WSGIRequestHandler, WSGIServer
    from django.core.wsgi import get_wsgi_application

    class NoBodyAfterHead(basehttp.ServerHandler):
        """Django's development server writes GET's body after a HEAD answer; the servers a deployment runs
        behind (gunicorn, uWSGI, nginx) send none, as HTTP requires. This server does as they do, so the
        contract suite's HEAD check sees DRF as deployed; the headers (Content-Length too) are Django's."""

        def write(self, data):
            if self.environ.get("REQUEST_METHOD") == "HEAD":
                if not self.headers_sent:
                    self.bytes_sent = len(data)
                    self.send_headers()
                return
            super().write(data)

    basehttp.ServerHandler = NoBodyAfterHead  # handle_one_request builds its handler from this name

    class Handler(WSGIRequestHandler):
        def log_message(self, format, *args):
            pass

    # Single-threaded on purpose: the in-memory database lives on this thread's connection.
    server = WSGIServer((host, port), Handler)
    server.set_app(get_wsgi_application())
    return server


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--user", help="NAME:PASSWORD of a user BasicAuthentication accepts")
    args = parser.parse_args()

    import django
    from django.conf import settings

    # SIGTERM (how the differential runner stops this server) unwinds like Ctrl-C does, so the uploads
    # directory (settings.MEDIA_ROOT, made when the settings load) is removed either way.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    django.setup()
    try:
        return serve(args)
    except KeyboardInterrupt:
        return 0
    finally:
        shutil.rmtree(settings.MEDIA_ROOT, ignore_errors=True)


def serve(args):
    from django.core.management import call_command

    call_command("migrate", run_syncdb=True, verbosity=0)
    from edwsim import dataset

    count = dataset.load(args.dataset)
    if args.user:
        from django.contrib.auth.models import User

        name, _, password = args.user.partition(":")
        User.objects.create_user(username=name, password=password)
    problems = dataset.ties_in_ascending_id()
    if problems:
        print("SQLite does not return order=0 ties by ascending id:", *problems, sep="\n  ", file=sys.stderr)
        return 3

    server = make_server(args.host, args.port)
    host, port = server.server_address[:2]
    print(f"{count} records; listening on http://{host}:{port}", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
