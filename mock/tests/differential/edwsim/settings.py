"""Settings of the stand-in for django-edw's project (drf-behaviour.md §1.5, with the brief's overrides)."""

import tempfile

SECRET_KEY = "differential-test-only"
DEBUG = False
ALLOWED_HOSTS = ["*"]

# The middleware of Django's project template (startproject) that changes these answers, in its order:
# SecurityMiddleware (X-Content-Type-Options: nosniff, Referrer-Policy: same-origin, by Django 3.2's defaults),
# CommonMiddleware (APPEND_SLASH, Content-Length) and XFrameOptionsMiddleware (X-Frame-Options: DENY), innermost.
# No Session/Locale middleware, so Vary stays "Accept"; no CSRF middleware (DRF's SessionAuthentication checks
# CSRF itself, and an anonymous unsafe request is refused before).
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
APPEND_SLASH = True

# Links and image URLs take host and scheme from the proxy headers, as in edw's sample settings.
USE_X_FORWARDED_HOST = True
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LANGUAGE_CODE = "en-us"
USE_I18N = True
USE_TZ = False

INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",  # AnonymousUser and BasicAuthentication need it
    "django.contrib.staticfiles",  # templates of the browsable API use {% static %}
    "rest_framework",
    "django_filters",
    "edwsim",
]

ROOT_URLCONF = "edwsim.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
    }
]
STATIC_URL = "/static/"

# One in-memory database: the server is single-threaded, so every request uses the connection that loaded it.
# SQLite, with the page query's LIMIT read as MySQL (edw's database) reads it: edwsim/mysql_like/base.py.
DATABASES = {"default": {"ENGINE": "edwsim.mysql_like", "NAME": ":memory:"}}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"

MEDIA_URL = "/media/"
# Uploads (POST) are written here, at filer_public/<uuid[0:2]>/<uuid[2:4]>/<uuid>/<name>; serve_drf.py removes
# the directory when it stops. The dataset's files are never read: only FileSystemStorage.url() is used.
MEDIA_ROOT = tempfile.mkdtemp(prefix="edwsim-media-")

REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": (
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ),
    "DEFAULT_FILTER_BACKENDS": ("django_filters.rest_framework.DjangoFilterBackend",),
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 12,
}

# Tracebacks of 500s go to stderr so a failing run shows why; request lines are not logged.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"stderr": {"class": "logging.StreamHandler"}},
    "loggers": {
        "django.request": {"handlers": ["stderr"], "level": "ERROR", "propagate": False},
        "django.security": {"handlers": [], "propagate": False},
    },
}
