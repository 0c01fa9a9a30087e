#!/usr/bin/python3
"""Serves the DRF stand-in of GET /edw/api/entities-images/ on 127.0.0.1 (Debian's Django 3.2 + DRF 3.14).

Its MEDIA_URL is served as a deployment's front server serves it (front_media.py): a picture for each record.

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

    class AsGunicornFrames(basehttp.ServerHandler):
        """Frames answers as gunicorn, which deployments run, does, where Django's development server does not:

        - no body after a HEAD answer (the development server writes GET's body; gunicorn, uWSGI and nginx send
          none, as HTTP requires), so the contract suite's HEAD check sees DRF as deployed;
        - an answer Django made without a Content-Length (its 400 for an unusable Host, which skips
          CommonMiddleware's process_response) is sent with `Transfer-Encoding: chunked` on HTTP/1.1 (gunicorn's
          Response.is_chunked: no length, HTTP/1.1, not HEAD, not 204/304); the development server sent it
          close-delimited. The headers are Django's."""

        chunked = False

        def cleanup_headers(self):
            super().cleanup_headers()
            status = int(self.status.split(" ", 1)[0])
            self.chunked = ("Content-Length" not in self.headers and self.request_handler.request_version == "HTTP/1.1"
                            and self.environ.get("REQUEST_METHOD") != "HEAD" and status not in (204, 304))
            if self.chunked:
                self.headers["Transfer-Encoding"] = "chunked"

        def write(self, data):
            head = self.environ.get("REQUEST_METHOD") == "HEAD"
            if not self.headers_sent:
                self.bytes_sent = len(data)
                self.send_headers()
            else:
                self.bytes_sent += len(data)
            if head:
                return
            if self.chunked:
                if data:
                    self._write(b"%X\r\n" % len(data) + data + b"\r\n")
            else:
                self._write(data)
            self._flush()

        def finish_content(self):
            super().finish_content()
            if self.chunked:
                self._write(b"0\r\n\r\n")
                self._flush()

    basehttp.ServerHandler = AsGunicornFrames  # handle_one_request builds its handler from this name

    class Handler(WSGIRequestHandler):
        def log_message(self, format, *args):
            pass

        def get_environ(self):
            # wsgiref fills in CONTENT_TYPE "text/plain" for a request without a Content-Type; gunicorn sets it
            # only from the header, so Django's request.content_type is "" there (DRF's 415 names "").
            environ = super().get_environ()
            if self.headers.get("Content-Type") is None:
                environ.pop("CONTENT_TYPE", None)
            return environ

    # Single-threaded on purpose: the in-memory database lives on this thread's connection.
    server = WSGIServer((host, port), Handler)
    from django.conf import settings

    import front_media

    server.set_app(front_media.with_media(get_wsgi_application(), settings.MEDIA_ROOT, settings.MEDIA_URL))
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
    import front_media
    from django.conf import settings

    front_media.write_pictures(settings.MEDIA_ROOT, front_media.record_files())
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
