"""django-filer 2.2.5's stored file names (filer/utils/files.py:122-138), without the unidecode package.

filer's get_valid_filename runs Django's get_valid_filename, splits off the extension and slugifies stem and
extension apart, where slugify is Django's slugify after unidecode. unidecode is not installed here, so
`unidecode` below transliterates only the Russian and Ukrainian letters (А-я, Ёё, Єє, Іі, Її, Ґґ) and the
Latin-1 letters U+00C0-U+00FF, with the same table as the mock (mock/helpers/filer_names.cpp), and drops every other
non-ASCII character. Checked against unidecode 1.4: after slugify the results agree for every one of those
characters (unidecode writes Ъ/ъ as "'" and Ґ/ґ as "G'"/"g'", the table '"' and "G"/"g"; slugify drops the
quotes either way). Other Cyrillic letters (Ђ, Ў, Љ, ...) and other scripts would differ from real filer: the
differential requests use none.
"""

import os

from django.template.defaultfilters import slugify as slugify_django
from django.utils.text import get_valid_filename as get_valid_filename_django

_CYRILLIC_UPPER = ["A", "B", "V", "G", "D", "E", "Zh", "Z", "I", "I", "K", "L", "M", "N", "O", "P",
                   "R", "S", "T", "U", "F", "Kh", "Ts", "Ch", "Sh", "Shch", '"', "Y", "'", "E", "Iu", "Ia"]
_LATIN1 = ["A", "A", "A", "A", "A", "A", "AE", "C", "E", "E", "E", "E", "I", "I", "I", "I",
           "D", "N", "O", "O", "O", "O", "O", "x", "O", "U", "U", "U", "U", "Y", "Th", "ss",
           "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
           "d", "n", "o", "o", "o", "o", "o", "/", "o", "u", "u", "u", "u", "y", "th", "y"]
_CYRILLIC_EXTRA = {0x401: "Io", 0x404: "Ie", 0x406: "I", 0x407: "Yi", 0x490: "G"}


def _transliterate(char):
    code = ord(char)
    if code < 0x80:
        return char
    if 0xC0 <= code <= 0xFF:
        return _LATIN1[code - 0xC0]
    if 0x410 <= code <= 0x42F:
        return _CYRILLIC_UPPER[code - 0x410]
    if 0x430 <= code <= 0x44F:
        return _CYRILLIC_UPPER[code - 0x430].lower()
    if code in _CYRILLIC_EXTRA:
        return _CYRILLIC_EXTRA[code]
    if code - 0x50 in _CYRILLIC_EXTRA and 0x450 <= code <= 0x45F:
        return _CYRILLIC_EXTRA[code - 0x50].lower()
    if code == 0x491:
        return "g"
    return ""


def unidecode(text):
    return "".join(_transliterate(char) for char in text)


def slugify(text):
    return slugify_django(unidecode(str(text)))


def get_valid_filename(name):
    name = get_valid_filename_django(name)
    stem, ext = os.path.splitext(name)
    stem, ext = slugify(stem), slugify(ext)
    return f"{stem}.{ext}" if ext else stem
