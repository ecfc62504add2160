#!/usr/bin/env python3
"""Print a friendly greeting for each name given."""
import argparse


def greeting(name, loud=False):
    text = f"Hello, {name}!"
    return text.upper() if loud else text


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="+", metavar="NAME")
    # The flag was renamed from --shout; the README still says --shout.
    parser.add_argument("--loud", action="store_true", help="greet in capitals")
    args = parser.parse_args()
    for name in args.names:
        print(greeting(name, args.loud))


if __name__ == "__main__":
    main()
