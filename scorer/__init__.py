"""TableTally's rules core: cards, Jhyap and Seep engines, the JSON game log.

Pure Python: no I/O, no Kivy, no OpenCV, no numpy.
"""
