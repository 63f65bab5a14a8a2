// Exit tray: the tower drops cubes in at the back, the camera looks down on the floor.
// Floor sized from common.scad so 40 cubes of 10 mm lie in one layer; print upright, no supports.
include <common.scad>

button_d = 12.2;  // "count now" push button in the front wall

module tray() {
    outer_w = tray_inner_w + 2 * tray_wall;
    outer_d = tray_inner_d + 2 * tray_wall;
    difference() {
        cube([outer_w, outer_d, tray_floor + tray_wall_h]);
        translate([tray_wall, tray_wall, tray_floor])
            cube([tray_inner_w, tray_inner_d, tray_wall_h + 1]);
        // entry for the tower's exit ramp, centred in the back wall
        translate([(outer_w - tray_entry_w) / 2, outer_d - tray_wall - 1, tray_floor])
            cube([tray_entry_w, tray_wall + 2, tray_wall_h + 1]);
        // count-now button, front wall
        translate([outer_w - 25, -1, tray_floor + tray_wall_h / 2])
            rotate([-90, 0, 0]) cylinder(d = button_d, h = tray_wall + 2);
    }
    // a boss on the left wall for the camera mount's column: two M3 pilot holes from outside
    translate([-8, outer_d / 2 - 6, 0]) difference() {
        cube([8, 12, tray_floor + tray_wall_h]);
        for (z = [7, 22]) translate([-1, 6, z]) rotate([0, 90, 0]) cylinder(d = pilot_m3, h = 10);
    }
}

echo(tray_inner = [tray_inner_w, tray_inner_d], tray_entry = tray_entry_w);
echo(tray_floor_per_cube = tray_inner_w * tray_inner_d / (tray_cubes * cube_size * cube_size));
tray();
