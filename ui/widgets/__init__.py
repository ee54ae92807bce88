"""The kiosk's widgets, by what they do: plain ones (:mod:`.basic`), cards (:mod:`.cards`), the photo
(:mod:`.photo`), the chart (:mod:`.chart`) and the name keyboard (:mod:`.keyboard`)."""
